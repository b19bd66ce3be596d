#include "api_keys.h"

#include <fstream>
#include <regex>
#include <sstream>

namespace stormwatch::gateway {

namespace {

const std::set<std::string, std::less<>> kScopes = {"session:open",  "session:close", "invoke:read",
                                                    "invoke:write",  "invoke:secure", "events:read",
                                                    "metadata:read", "admin"};

// The key's id, for messages: never its secret.
std::string keyId(std::string_view key)
{
    const auto first = key.find('_');
    const auto second = first == std::string_view::npos ? first : key.find('_', first + 1);
    if (second == std::string_view::npos)
        return "?";
    return std::string(key.substr(first + 1, second - first - 1));
}

} // namespace

std::optional<ApiKeys> ApiKeys::load(const std::string& path, std::string& error)
{
    std::ifstream in(path);
    if (!in) {
        error = "cannot read the API key file '" + path + "'";
        return std::nullopt;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path, error);
}

std::optional<ApiKeys> ApiKeys::parse(const std::string& text, const std::string& source,
                                      std::string& error)
{
    static const std::regex line(R"(^\s*(mxgw_[^_\s]+_\S+)\s+(\S+)\s*$)");
    ApiKeys keys;
    std::istringstream lines(text);
    std::string l;
    for (int n = 1; std::getline(lines, l); ++n) {
        const auto hash = l.find('#');
        if (hash != std::string::npos)
            l.erase(hash);
        if (l.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        std::smatch m;
        if (!std::regex_match(l, m, line)) {
            error = source + ":" + std::to_string(n) +
                    ": must be 'mxgw_<key-id>_<secret> scope[,scope...]'";
            return std::nullopt;
        }
        auto& scopes = keys.m_scopes[m[1].str()];
        std::istringstream list(m[2].str());
        for (std::string scope; std::getline(list, scope, ',');) {
            if (!kScopes.contains(scope)) {
                error = source + ":" + std::to_string(n) + ": unknown scope '" + scope +
                        "' (scopes: session:open, session:close, invoke:read, invoke:write, "
                        "invoke:secure, "
                        "events:read, metadata:read, admin)";
                return std::nullopt;
            }
            scopes.insert(scope);
        }
    }
    if (keys.m_scopes.empty()) {
        error = source + ": no key";
        return std::nullopt;
    }
    return keys;
}

std::string_view ApiKeys::scopeFor(std::string_view method)
{
    if (method == "OpenSession")
        return "session:open";
    if (method == "CloseSession")
        return "session:close";
    if (method == "Invoke")
        return "invoke:read"; // the mock serves no write: a write kind is refused anyway
    if (method == "StreamEvents")
        return "events:read";
    return {};
}

CallStatus ApiKeys::authorize(std::string_view authorization, std::string_view scope) const
{
    constexpr std::string_view bearer = "Bearer ";
    if (!authorization.starts_with(bearer))
        return CallStatus::error(grpc::StatusCode::UNAUTHENTICATED,
                                 "no API key (authorization: Bearer mxgw_<key-id>_<secret>)");
    const std::string_view key = authorization.substr(bearer.size());
    const auto it = m_scopes.find(key);
    if (it == m_scopes.end())
        return CallStatus::error(grpc::StatusCode::UNAUTHENTICATED,
                                 "unknown API key " + keyId(key));
    if (scope.empty() || it->second.contains(std::string_view("admin")) ||
        it->second.contains(scope))
        return {};
    return CallStatus::error(grpc::StatusCode::PERMISSION_DENIED,
                             "API key " + keyId(key) + " lacks the scope " + std::string(scope));
}

} // namespace stormwatch::gateway
