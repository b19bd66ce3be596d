// What a live port's options mean: their files read and checked, the contract's codec, and
// a failure explained in one line a person can act on.
#include "grpc_port_internal.h"
#include "log_text.h"
#include "wire/contract.h"
#include "wire/contract_check.h"

#include <QRegularExpression>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace stormwatch {

namespace {

// Reads a whole file; an error sentence naming `what` and `path` (never the contents).
std::optional<std::string> readFile(const std::string& what, const std::string& path,
                                    std::string& error)
{
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
        error = what + " '" + path + "' does not exist";
        return std::nullopt;
    }
    if (!std::filesystem::is_regular_file(path, ec)) {
        error = what + " '" + path + "' is not a regular file";
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (in)
        text << in.rdbuf();
    if (!in || in.bad()) {
        error = what + " '" + path + "' cannot be read";
        return std::nullopt;
    }
    return text.str();
}

} // namespace

std::optional<std::string> readPem(const std::string& what, const std::string& path,
                                   std::string& error)
{
    auto text = readFile(what, path, error);
    if (text && text->find("-----BEGIN ") == std::string::npos) {
        error = what + " '" + path + "' is not a PEM file";
        return std::nullopt;
    }
    return text;
}

std::optional<std::string> readToken(const std::string& path, std::string& error)
{
    auto text = readFile("token file", path, error);
    if (!text)
        return std::nullopt;
    const auto first = text->find_first_not_of(" \t\r\n");
    if (first == std::string::npos) {
        error = "token file '" + path + "' is empty";
        return std::nullopt;
    }
    const auto last = text->find_last_not_of(" \t\r\n");
    std::string token = text->substr(first, last - first + 1);
    for (unsigned char c : token) {
        if (c < 0x20 || c > 0x7e) {
            error = "token file '" + path + "' holds characters not allowed in a header";
            return std::nullopt;
        }
    }
    return token;
}

bool looksLikeHostPort(const std::string& address)
{
    static const std::regex pattern(R"(^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):([0-9]{1,5})$)");
    std::smatch match;
    if (!std::regex_match(address, match, pattern))
        return false;
    const int port = std::stoi(match[2].str());
    return port >= 1 && port <= 65535;
}

void setKeepalive(GrpcPortOptions& options, double keepaliveS, double keepaliveTimeoutS)
{
    const auto from = [](double s) {
        return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s));
    };
    if (keepaliveS > 0)
        options.keepaliveTime = from(keepaliveS);
    if (keepaliveTimeoutS > 0)
        options.keepaliveTimeout = from(keepaliveTimeoutS);
}

QString GrpcGatewayPort::validate(const GrpcPortOptions& options)
{
    if (!looksLikeHostPort(options.address))
        return QStringLiteral("gateway address '%1' is not host:port (e.g. 127.0.0.1:50051)")
            .arg(QString::fromStdString(options.address));
    if (options.invokeDeadline.count() < 0)
        return QStringLiteral("the Invoke deadline must not be negative");
    if (options.connectTimeout.count() < 0)
        return QStringLiteral("the connect timeout must not be negative");
    if (options.keepaliveTime < std::chrono::milliseconds(100) ||
        options.keepaliveTimeout < std::chrono::milliseconds(100))
        return QStringLiteral("the keepalive time and timeout must be at least 0.1 s");
    std::string error;
    if (!options.tokenFile.empty() && !readToken(options.tokenFile, error))
        return QString::fromStdString(error);
    if (options.tls) {
        const TlsFiles& files = *options.tls;
        if (files.certFile.empty() != files.keyFile.empty())
            return QString::fromStdString(
                files.certFile.empty()
                    ? "TLS key file '" + files.keyFile + "' given without a certificate file"
                    : "TLS certificate file '" + files.certFile + "' given without a key file");
        if (!files.caFile.empty() && !readPem("TLS CA file", files.caFile, error))
            return QString::fromStdString(error);
        if (!files.certFile.empty() && !readPem("TLS certificate file", files.certFile, error))
            return QString::fromStdString(error);
        if (!files.keyFile.empty() && !readPem("TLS key file", files.keyFile, error))
            return QString::fromStdString(error);
    }
    if (!options.contractFile.empty() && !codecFor(options, error))
        return QString::fromStdString(error);
    return {};
}

QString GrpcGatewayPort::validateTransport(const GrpcPortOptions& options)
{
    GrpcPortOptions transport = options;
    transport.contractFile.clear();
    transport.contractProfile.clear();
    return validate(transport);
}

std::shared_ptr<const wire::WireCodec> GrpcGatewayPort::codecFor(const GrpcPortOptions& options,
                                                                 std::string& error)
{
    if (options.contractFile.empty() && options.contractProfile.empty())
        return wire::WireCodec::compiled();
    std::shared_ptr<const wire::GatewayContract> contract = wire::GatewayContract::compiled();
    if (!options.contractFile.empty()) {
        contract = wire::GatewayContract::fromFile(options.contractFile, error);
        if (!contract)
            return nullptr;
    }
    return codecFor(std::move(contract), options, error);
}

std::shared_ptr<const wire::WireCodec>
GrpcGatewayPort::codecFor(std::shared_ptr<const wire::GatewayContract> contract,
                          const GrpcPortOptions& options, std::string& error)
{
    const wire::ContractProfile* profile = wire::profileFor(*contract);
    if (!options.contractProfile.empty()) {
        profile = wire::findProfile(options.contractProfile);
        if (!profile) {
            error = "unknown contract profile '" + options.contractProfile +
                    "' (profiles: " + wire::profileNames() + ")";
            return nullptr;
        }
    }
    std::string why;
    auto codec = wire::WireCodec::create(wire::checkContract(contract, *profile), why);
    if (!codec) {
        error = why + "; no command is sent to a gateway whose contract does not check (stormwatch "
                      "--check-contract FILE shows each element)";
        return nullptr;
    }
    // The published gateway's API keys have one form; another is refused before connecting
    // rather than by the gateway.
    static const std::regex apiKey(R"(^mxgw_[^_\s]+_\S+$)");
    if (std::string(profile->name) == "mxaccess-gateway-v1" && !options.tokenFile.empty()) {
        const auto token = readToken(options.tokenFile, error);
        if (!token)
            return nullptr;
        if (!std::regex_match(*token, apiKey)) {
            error = "token file '" + options.tokenFile +
                    "' does not hold an MXAccess Gateway API key "
                    "(mxgw_<key-id>_<secret>)";
            return nullptr;
        }
    }
    return codec;
}

GatewayFailure GrpcGatewayPort::explainFailure(const RpcStatus& status,
                                               const GrpcPortOptions& options)
{
    const std::string said = escapeLogText(status.toString(), 512);
    const auto has = [&](const char* needle) {
        return QString::fromStdString(status.message)
            .contains(QLatin1String(needle), Qt::CaseInsensitive);
    };
    switch (status.code) {
    case grpc::StatusCode::UNAUTHENTICATED:
        return {options.tokenFile.empty()
                    ? "the gateway needs credentials: give its bearer token with --token-file (" +
                          said + ")"
                    : "the gateway refused the bearer token from --token-file '" +
                          options.tokenFile + "' (" + said + ")",
                true};
    case grpc::StatusCode::PERMISSION_DENIED:
        return {"the gateway denied these credentials: the key needs the scopes session:open, "
                "session:close, "
                "invoke:read and events:read (" +
                    said + ")",
                true};
    case grpc::StatusCode::UNIMPLEMENTED:
        // Up, but not serving these method paths: another contract (a real gateway asked in
        // stormwatch's own, say). Retrying cannot help; its own contract file can.
        return {
            "the gateway is up but does not serve " +
                (options.contractFile.empty()
                     ? std::string("stormwatch's own contract (package mxgateway.v1)")
                     : "the contract in --gateway-contract '" + options.contractFile + "'") +
                ": give it its own contract file with --gateway-contract FILE (check it first with "
                "--check-contract FILE) (" +
                said + ")",
            true};
    case grpc::StatusCode::UNAVAILABLE:
        break;
    default:
        return {said, false};
    }
    if (!options.tls)
        return {said, false};
    // gRPC names the handshake's failure in the status text ("Ssl handshake failed: ...
    // certificate verify failed", "Peer name H is not in peer certificate").
    if (has("certificate verify failed") || has("CERTIFICATE_VERIFY_FAILED")) {
        const std::string& ca = options.tls->caFile;
        return {"TLS: the gateway's certificate is not trusted: it is not signed by " +
                    (ca.empty()
                         ? std::string("a CA the system trusts (give its CA with --tls-ca FILE)")
                         : "the CA in --tls-ca '" + ca + "'") +
                    " (" + said + ")",
                true};
    }
    static const QRegularExpression peerName(
        QStringLiteral("Peer name (\\S+) is not in peer certificate"));
    if (const auto m = peerName.match(QString::fromStdString(status.message)); m.hasMatch())
        return {"TLS: the gateway's certificate is not issued for '" +
                    escapeLogText(m.captured(1).toStdString(), 256) +
                    "', the host name in --gateway (connect by a name or address the certificate "
                    "lists)",
                true};
    if (has("handshake") || has("ssl"))
        return {"TLS handshake with the gateway failed (does it serve TLS? does it want a client "
                "certificate, "
                "--tls-cert and --tls-key?): " +
                    said,
                true};
    return {said, false};
}

} // namespace stormwatch
