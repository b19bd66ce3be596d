#include "grpc_contract_discovery.h"

#include "grpc_port_internal.h"
#include "proto/grpc_bytes.h"
#include "wire/contract_profile.h"
#include "wire/server_reflection.h"

#include <deque>
#include <grpcpp/generic/generic_stub.h>
#include <mutex>
#include <set>

namespace stormwatch {

namespace refl = wire::reflection;

namespace {

// A listed service is a gateway's when its name (after the package) is the gateway service
// of a contract family stormwatch knows; the mock's control service, health and reflection
// are not asked for.
bool isGatewayService(const std::string& fullName)
{
    const auto dot = fullName.rfind('.');
    const std::string name = dot == std::string::npos ? fullName : fullName.substr(dot + 1);
    for (const auto& profile : wire::contractProfiles())
        if (name == profile.service)
            return true;
    return false;
}

class Discovery final : public ContractDiscovery,
                        public grpc::ClientBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
public:
    Discovery(std::string path, Done done) : m_path(std::move(path)), m_done(std::move(done)) {}

    void start(grpc::GenericStub& stub) override
    {
        stub.PrepareBidiStreamingCall(&context, m_path, grpc::StubOptions(), this);
        send(refl::encodeListServices());
        StartRead(&m_reply);
        StartCall();
    }

    void OnReadDone(bool ok) override
    {
        if (!ok)
            return; // OnDone follows with the status
        refl::Response response;
        std::string error;
        const bool read = refl::decodeResponse(bytesOf(m_reply), response, error);
        m_reply.Clear();
        if (!read) {
            fail(grpc::StatusCode::INTERNAL, error);
            return;
        }
        if (response.kind == refl::Response::Kind::Error) {
            // Not a status of the call: the gateway lists a service it cannot describe.
            fail(grpc::StatusCode::INTERNAL,
                 "server reflection could not describe " +
                     (m_next > 0 ? m_asked[m_next - 1] : std::string("its services")) + ": " +
                     std::string(statusCodeName(grpc::StatusCode(response.errorCode))) + " " +
                     response.errorMessage);
            return;
        }
        if (!m_listed) {
            m_listed = true;
            m_result.services = response.services;
            for (const auto& service : response.services)
                if (isGatewayService(service))
                    m_asked.push_back(service);
            if (m_asked.empty()) {
                m_result.outcome = DiscoveredContract::Outcome::NoGateway;
                endWrites();
                return;
            }
        } else {
            for (auto& file : response.files)
                if (m_seen.insert(file).second)
                    m_result.files.push_back(std::move(file));
        }
        if (m_next < m_asked.size()) {
            send(refl::encodeFileContainingSymbol(m_asked[m_next++]));
            StartRead(&m_reply);
        } else {
            m_result.outcome = DiscoveredContract::Outcome::Read;
            endWrites();
        }
    }

    void OnWriteDone(bool ok) override
    {
        std::lock_guard lock(m_writeMutex);
        m_writing = false;
        m_writes.pop_front();
        if (ok)
            writeNext();
    }

    void OnDone(const grpc::Status& status) override
    {
        DiscoveredContract result = std::move(m_result);
        if (m_failed) {
            result.outcome = DiscoveredContract::Outcome::Failed;
            result.status = m_failure;
        } else if (status.error_code() == grpc::StatusCode::UNIMPLEMENTED) {
            result.outcome = DiscoveredContract::Outcome::NoReflection;
            result.status = toRpcStatus(status);
        } else if (!status.ok() || (result.outcome != DiscoveredContract::Outcome::Read &&
                                    result.outcome != DiscoveredContract::Outcome::NoGateway)) {
            result.outcome = DiscoveredContract::Outcome::Failed;
            result.status = status.ok() ? RpcStatus{grpc::StatusCode::UNAVAILABLE,
                                                    "server reflection ended before it answered"}
                                        : toRpcStatus(status);
        }
        Done done = std::move(m_done);
        done(std::move(result)); // may release this call
    }

private:
    // One write in flight at a time: a reply can arrive before its request's write is done.
    void send(std::string bytes)
    {
        std::lock_guard lock(m_writeMutex);
        m_writes.push_back(toByteBuffer(bytes));
        writeNext();
    }
    void endWrites()
    {
        std::lock_guard lock(m_writeMutex);
        m_endWrites = true;
        writeNext();
    }
    void writeNext() // under m_writeMutex
    {
        if (m_writing)
            return;
        if (!m_writes.empty()) {
            m_writing = true;
            StartWrite(&m_writes.front());
        } else if (m_endWrites && !m_writesEnded) {
            m_writesEnded = true;
            StartWritesDone();
        }
    }
    void fail(grpc::StatusCode code, std::string message)
    {
        m_failed = true;
        m_failure = RpcStatus{code, std::move(message)};
        context.TryCancel();
    }

    std::string m_path;
    Done m_done;
    grpc::ByteBuffer m_reply;
    DiscoveredContract m_result;
    bool m_listed = false;
    std::vector<std::string> m_asked;
    std::size_t m_next = 0;
    std::set<std::string> m_seen;
    bool m_failed = false;
    RpcStatus m_failure;

    std::recursive_mutex m_writeMutex; // a reaction may run inline in StartWrite
    std::deque<grpc::ByteBuffer> m_writes;
    bool m_writing = false;
    bool m_endWrites = false;
    bool m_writesEnded = false;
};

} // namespace

std::shared_ptr<ContractDiscovery> ContractDiscovery::create(std::string path, Done done)
{
    return std::make_shared<Discovery>(std::move(path), std::move(done));
}

} // namespace stormwatch
