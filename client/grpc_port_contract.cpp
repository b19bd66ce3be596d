// The gateway's contract, when none was given, from its server reflection: calls wait for it,
// and what it says decides what the port sends.
#include "grpc_contract_discovery.h"
#include "grpc_port_internal.h"
#include "log_text.h"
#include "wire/contract.h"
#include "wire/contract_check.h"
#include "wire/server_reflection.h"

#include <iterator>
#include <utility>

namespace stormwatch {

namespace {

std::string joined(const std::vector<std::string>& names)
{
    std::string all;
    for (const auto& name : names)
        all += (all.empty() ? "" : ", ") + name;
    return all.empty() ? "none" : all;
}

} // namespace

GrpcGatewayPort::ContractSource GrpcGatewayPort::contractSource() const
{
    if (!m_discover)
        return ContractSource::Options;
    if (!m_shared->codec)
        return ContractSource::NotYetKnown;
    return m_ownContractNote.empty() ? ContractSource::Reflection
                                     : ContractSource::OwnWithoutReflection;
}

std::shared_ptr<const wire::WireCodec> GrpcGatewayPort::codec() const
{
    return m_shared->codec;
}

bool GrpcGatewayPort::holdForContract(std::function<void()> send,
                                      std::function<void(const RpcStatus&)> fail)
{
    if (!m_discover || m_shared->codec || !m_setupError.empty())
        return false;
    m_held.push_back({std::move(send), std::move(fail)});
    discoverContract();
    return true;
}

void GrpcGatewayPort::discoverContract()
{
    if (m_discovering)
        return;
    m_discovering = true;
    const std::string path = wire::reflection::kPaths[m_reflectionPath];
    auto key =
        std::make_shared<std::uint64_t>(0); // set before the call starts, read when it is done
    auto call = ContractDiscovery::create(
        path, [shared = m_shared, key](DiscoveredContract result) mutable {
            shared->post([shared, result = std::move(result)]() mutable {
                if (shared->port)
                    shared->port->contractDiscovered(std::move(result));
            });
            shared->release(*key);
        });
    prepare(call->context, m_options.connectTimeout);
    *key = m_shared->add(call);
    call->start(*m_shared->stub);
}

void GrpcGatewayPort::contractDiscovered(DiscoveredContract result)
{
    using Outcome = DiscoveredContract::Outcome;
    m_discovering = false;
    if (result.outcome == Outcome::NoReflection &&
        m_reflectionPath + 1 < std::size(wire::reflection::kPaths)) {
        ++m_reflectionPath; // the other version of the reflection service
        discoverContract();
        return;
    }
    m_reflectionPath = 0;
    const std::string own = "stormwatch's own contract (package mxgateway.v1)";
    switch (result.outcome) {
    case Outcome::Failed:
        break;
    case Outcome::NoReflection:
    case Outcome::NoGateway:
        m_shared->codec = wire::WireCodec::compiled();
        m_ownContractNote =
            (result.outcome == Outcome::NoReflection
                 ? std::string("the gateway serves no server reflection")
                 : "the gateway's server reflection lists no gateway service (it lists " +
                       escapeLogText(joined(result.services), 300) + ")") +
            ", so " + own + " was tried; give the gateway's own with --gateway-contract FILE";
        qCInfo(lcGrpcPort, "gateway port %s: %s", describe().c_str(), m_ownContractNote.c_str());
        break;
    case Outcome::Read: {
        const std::string origin = "server reflection of " + m_options.address;
        std::string error;
        auto contract = wire::GatewayContract::fromFileProtos(result.files, origin, error);
        std::shared_ptr<const wire::WireCodec> codec;
        if (contract && wire::sameFiles(*contract, *wire::GatewayContract::compiled()))
            codec = wire::WireCodec::compiled(); // what this binary was built from: its fast path
        else if (contract)
            codec = codecFor(contract, m_options, error);
        if (!codec) {
            // The gateway chose the names in it: escaped before they reach a log line.
            m_setupError =
                "the contract the gateway describes by server reflection cannot be used: " +
                escapeLogText(error, 2000);
            qCWarning(lcGrpcPort, "gateway port %s unusable: %s", describe().c_str(),
                      m_setupError.c_str());
            break;
        }
        m_shared->codec = codec;
        if (!codec->check().contract->isCompiled())
            m_contractOrigin = ", contract " + std::string(codec->check().profile->name) +
                               " from server reflection";
        qCInfo(lcGrpcPort, "gateway port %s: contract read by server reflection: %s",
               describe().c_str(), codec->check().summary().c_str());
        break;
    }
    }
    // Known now (or refused): each held call goes, and fails there if it must. Not known: each
    // fails as the gateway's answer made it, and the next call asks again.
    RpcStatus unread = result.status;
    unread.message =
        "the gateway's contract could not be read by server reflection: " + unread.message;
    for (auto& held : std::exchange(m_held, {})) {
        if (m_shared->codec || !m_setupError.empty())
            held.send();
        else
            held.fail(unread);
    }
}

} // namespace stormwatch
