// Sessions and commands through reflection: each role's field is looked up once, when the
// codec is made; a message is built or read field by field, by role, so a contract with
// other numbers, other types of the same kind or other names under the same profile works
// unchanged.
#include "wire_codec_internal.h"

#include <cinttypes>
#include <cstdio>
#include <utility>

namespace stormwatch::wire {

namespace v1 = mxgateway::v1;
using FD = gp::FieldDescriptor;

namespace {

// ---- reflection helpers: a scalar of any integer, real, bool or string type ------------------

std::int64_t getInt(const gp::Message& m, const FD* f)
{
    const gp::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
        return r->GetInt32(m, f);
    case FD::CPPTYPE_INT64:
        return r->GetInt64(m, f);
    case FD::CPPTYPE_UINT32:
        return r->GetUInt32(m, f);
    case FD::CPPTYPE_UINT64:
        return static_cast<std::int64_t>(r->GetUInt64(m, f));
    case FD::CPPTYPE_ENUM:
        return r->GetEnumValue(m, f);
    case FD::CPPTYPE_BOOL:
        return r->GetBool(m, f) ? 1 : 0;
    default:
        return 0;
    }
}

std::int64_t getRepeatedInt(const gp::Message& m, const FD* f, int i)
{
    const gp::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
        return r->GetRepeatedInt32(m, f, i);
    case FD::CPPTYPE_INT64:
        return r->GetRepeatedInt64(m, f, i);
    case FD::CPPTYPE_UINT32:
        return r->GetRepeatedUInt32(m, f, i);
    case FD::CPPTYPE_UINT64:
        return static_cast<std::int64_t>(r->GetRepeatedUInt64(m, f, i));
    default:
        return 0;
    }
}

void setInt(gp::Message& m, const FD* f, std::int64_t v)
{
    const gp::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
        r->SetInt32(&m, f, static_cast<std::int32_t>(v));
        break;
    case FD::CPPTYPE_INT64:
        r->SetInt64(&m, f, v);
        break;
    case FD::CPPTYPE_UINT32:
        r->SetUInt32(&m, f, static_cast<std::uint32_t>(v));
        break;
    case FD::CPPTYPE_UINT64:
        r->SetUInt64(&m, f, static_cast<std::uint64_t>(v));
        break;
    case FD::CPPTYPE_ENUM:
        r->SetEnumValue(&m, f, static_cast<int>(v));
        break;
    case FD::CPPTYPE_BOOL:
        r->SetBool(&m, f, v != 0);
        break;
    default:
        break;
    }
}

void addInt(gp::Message& m, const FD* f, std::int64_t v)
{
    const gp::Reflection* r = m.GetReflection();
    switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
        r->AddInt32(&m, f, static_cast<std::int32_t>(v));
        break;
    case FD::CPPTYPE_INT64:
        r->AddInt64(&m, f, v);
        break;
    case FD::CPPTYPE_UINT32:
        r->AddUInt32(&m, f, static_cast<std::uint32_t>(v));
        break;
    case FD::CPPTYPE_UINT64:
        r->AddUInt64(&m, f, static_cast<std::uint64_t>(v));
        break;
    default:
        break;
    }
}

bool isIntLike(const FD* f)
{
    switch (f->cpp_type()) {
    case FD::CPPTYPE_INT32:
    case FD::CPPTYPE_INT64:
    case FD::CPPTYPE_UINT32:
    case FD::CPPTYPE_UINT64:
    case FD::CPPTYPE_ENUM:
    case FD::CPPTYPE_BOOL:
        return true;
    default:
        return false;
    }
}

// One field of `src` into `df` of `dst`: scalars of matching kinds (any integer width, bool,
// string, real), repeated or not, and well-known messages (Duration, Timestamp) by their bytes.
bool copyField(const gp::Message& src, const FD* sf, gp::Message& dst, const FD* df)
{
    const gp::Reflection* sr = src.GetReflection();
    const gp::Reflection* dr = dst.GetReflection();
    if (sf->is_repeated() != df->is_repeated())
        return false;
    if (sf->cpp_type() == FD::CPPTYPE_MESSAGE || df->cpp_type() == FD::CPPTYPE_MESSAGE) {
        if (sf->cpp_type() != df->cpp_type() || sf->is_repeated() ||
            sf->message_type()->full_name() != df->message_type()->full_name())
            return false;
        if (sr->HasField(src, sf))
            dr->MutableMessage(&dst, df, nullptr)
                ->ParseFromString(sr->GetMessage(src, sf).SerializeAsString());
        return true;
    }
    if (sf->cpp_type() == FD::CPPTYPE_STRING && df->cpp_type() == FD::CPPTYPE_STRING) {
        if (sf->is_repeated()) {
            for (int i = 0; i < sr->FieldSize(src, sf); ++i)
                dr->AddString(&dst, df, sr->GetRepeatedString(src, sf, i));
        } else {
            dr->SetString(&dst, df, sr->GetString(src, sf));
        }
        return true;
    }
    const bool real = sf->cpp_type() == FD::CPPTYPE_DOUBLE || sf->cpp_type() == FD::CPPTYPE_FLOAT;
    const bool dreal = df->cpp_type() == FD::CPPTYPE_DOUBLE || df->cpp_type() == FD::CPPTYPE_FLOAT;
    if (real && dreal && !sf->is_repeated()) {
        const double v =
            sf->cpp_type() == FD::CPPTYPE_DOUBLE ? sr->GetDouble(src, sf) : sr->GetFloat(src, sf);
        if (df->cpp_type() == FD::CPPTYPE_DOUBLE)
            dr->SetDouble(&dst, df, v);
        else
            dr->SetFloat(&dst, df, static_cast<float>(v));
        return true;
    }
    if (isIntLike(sf) && isIntLike(df)) {
        if (sf->is_repeated()) {
            for (int i = 0; i < sr->FieldSize(src, sf); ++i)
                addInt(dst, df, getRepeatedInt(src, sf, i));
        } else {
            setInt(dst, df, getInt(src, sf));
        }
        return true;
    }
    return false;
}

bool isSet(const gp::Message& m, const FD* f)
{
    const gp::Reflection* r = m.GetReflection();
    return f->is_repeated() ? r->FieldSize(m, f) > 0 : r->HasField(m, f);
}

bool parse(gp::Message& m, const std::string& bytes, std::string& error)
{
    if (m.ParseFromString(bytes))
        return true;
    error = m.GetDescriptor()->name() + " does not parse";
    return false;
}

// A command payload the client sends: the compiled MxCommand's case, and its role name.
struct Payload {
    v1::MxCommand::KindCase kindCase;
    const char* name;
};
constexpr Payload kPayloads[] = {
    {v1::MxCommand::kRegister, "register"},
    {v1::MxCommand::kAddItemBulk, "add_item_bulk"},
    {v1::MxCommand::kAdviseSupervisory, "advise_supervisory"},
    {v1::MxCommand::kAdvise, "advise"},
    {v1::MxCommand::kUnAdvise, "un_advise"},
    {v1::MxCommand::kRemoveItem, "remove_item"},
    {v1::MxCommand::kSubscribeBulk, "subscribe_bulk"},
    {v1::MxCommand::kSubscribeAlarms, "subscribe_alarms"},
};

// Reply payloads the client reads, with the role of their message's fields.
constexpr const char* kBulkReplies[] = {"add_item_bulk", "subscribe_bulk"};

// OpenSessionReply: each role, and the compiled field it is read into or written from.
constexpr std::pair<const char*, const char*> kOpenReplyFields[] = {
    {"open.session_id", "session_id"},
    {"open.capabilities", "capabilities"},
    {"open.default_command_timeout", "default_command_timeout"},
    {"open.protocol_version", "gateway_protocol_version"},
};

} // namespace

// ---- making the codec ---------------------------------------------------------------------

WireCodec::WireCodec(ContractCheck check)
    : m_check(std::move(check)), m_r(std::make_unique<Resolved>(&m_check.contract->pool()))
{
    for (const auto& e : m_check.elements) {
        if (e.status != ElementCheck::Status::Found)
            continue;
        if (e.field)
            m_r->fields.emplace(e.element->role, e.field);
        if (e.enumValue)
            m_r->enumValues.emplace(e.element->role, e.number);
    }
    for (const auto& rpc : m_check.rpcs) {
        const std::string role = rpc.rpc->role;
        const auto set = [&](const gp::MethodDescriptor*& method, std::string& path) {
            method = rpc.method;
            path = rpc.path;
        };
        if (role == "open")
            set(m_r->open, m_r->openPath);
        else if (role == "close")
            set(m_r->close, m_r->closePath);
        else if (role == "invoke")
            set(m_r->invoke, m_r->invokePath);
        else if (role == "events")
            set(m_r->events, m_r->eventsPath);
    }
    resolveEventLayout(*m_r);
}

WireCodec::~WireCodec() = default;

std::shared_ptr<const WireCodec> WireCodec::create(const ContractCheck& check, std::string& error)
{
    if (check.verdict() == Verdict::Unusable) {
        error = check.summary();
        return nullptr;
    }
    return std::shared_ptr<const WireCodec>(new WireCodec(check));
}

std::shared_ptr<const WireCodec> WireCodec::compiled()
{
    static const std::shared_ptr<const WireCodec> codec = [] {
        std::string error;
        auto c =
            create(checkContract(GatewayContract::compiled(), *findProfile("stormwatch")), error);
        if (!c)
            std::fprintf(stderr, "stormwatch: the compiled-in contract does not check: %s\n",
                         error.c_str());
        return c;
    }();
    return codec;
}

const std::string& WireCodec::openPath() const
{
    return m_r->openPath;
}
const std::string& WireCodec::closePath() const
{
    return m_r->closePath;
}
const std::string& WireCodec::invokePath() const
{
    return m_r->invokePath;
}
const std::string& WireCodec::eventsPath() const
{
    return m_r->eventsPath;
}
bool WireCodec::canSendCommandTimeout() const
{
    return m_r->f("open.command_timeout") != nullptr;
}
bool WireCodec::hasSupervisoryFlag() const
{
    return m_r->f("subscribe_bulk.supervisory") != nullptr;
}
bool WireCodec::hasEventSequence() const
{
    return bool(m_r->layout.sequence);
}
bool WireCodec::canSend(std::string_view payload) const
{
    return m_r->f("command." + std::string(payload)) != nullptr;
}
bool WireCodec::canResumeEvents() const
{
    return m_r->f("events.resume_after") != nullptr;
}

// ---- sessions -----------------------------------------------------------------------------------

bool WireCodec::encodeOpenRequest(const v1::OpenSessionRequest& in, std::string& out,
                                  std::string&) const
{
    auto m = m_r->make(m_r->open->input_type());
    if (const FD* f = m_r->f("open.client_name"))
        m->GetReflection()->SetString(m.get(), f, in.client_name());
    // Without the field the gateway's default applies (the check names that limit).
    if (const FD* f = m_r->f("open.command_timeout"); f && in.has_command_timeout())
        copyField(in, in.GetDescriptor()->FindFieldByName("command_timeout"), *m, f);
    out = m->SerializeAsString();
    return true;
}

bool WireCodec::decodeOpenReply(const std::string& bytes, v1::OpenSessionReply& out,
                                std::string& error) const
{
    auto m = m_r->make(m_r->open->output_type());
    if (!parse(*m, bytes, error))
        return false;
    const gp::Reflection* r = m->GetReflection();
    if (const FD* status = m_r->f("open.protocol_status"); status && r->HasField(*m, status)) {
        const gp::Message& s = r->GetMessage(*m, status);
        const FD* code = m_r->f("status.code");
        if (code && getInt(s, code) != m_r->value("status.ok").value_or(-1)) {
            const auto* name =
                code->enum_type()->FindValueByNumber(static_cast<int>(getInt(s, code)));
            const FD* text = m_r->f("status.message");
            error =
                "OpenSession refused: " + (name ? name->name() : std::to_string(getInt(s, code))) +
                (text ? ": " + s.GetReflection()->GetString(s, text) : std::string());
            return false;
        }
    }
    out.Clear();
    const gp::Descriptor* d = out.GetDescriptor();
    for (const auto& [role, name] : kOpenReplyFields)
        if (const FD* f = m_r->f(role))
            copyField(*m, f, out, d->FindFieldByName(name));
    return true;
}

bool WireCodec::encodeCloseRequest(const v1::CloseSessionRequest& in, std::string& out,
                                   std::string&) const
{
    auto m = m_r->make(m_r->close->input_type());
    m->GetReflection()->SetString(m.get(), m_r->f("close.session_id"), in.session_id());
    out = m->SerializeAsString();
    return true;
}

// ---- commands
// -------------------------------------------------------------------------------------

bool WireCodec::encodeInvokeRequest(const v1::MxCommandRequest& in, std::string& out,
                                    std::string& error) const
{
    auto m = m_r->make(m_r->invoke->input_type());
    const gp::Reflection* r = m->GetReflection();
    r->SetString(m.get(), m_r->f("invoke.session_id"), in.session_id());
    r->SetString(m.get(), m_r->f("invoke.correlation_id"), in.client_correlation_id());
    gp::Message* command = r->MutableMessage(m.get(), m_r->f("invoke.command"), &m_r->factory);

    const v1::MxCommand& cmd = in.command();
    const Payload* payload = nullptr;
    for (const auto& p : kPayloads)
        if (p.kindCase == cmd.kind_case())
            payload = &p;
    if (!payload) {
        const FD* set = v1::MxCommand::descriptor()->FindFieldByNumber(cmd.kind_case());
        const std::string name = set ? set->name() : std::string("an empty command");
        error = name.find("write") != std::string::npos
                    ? "stormwatch never sends a write (" + name + ")"
                    : "stormwatch does not send " + name;
        return false;
    }
    const std::string role = std::string("command.") + payload->name;
    const FD* wirePayload = m_r->f(role);
    if (!wirePayload) {
        error = "the contract has no " + std::string(payload->name) + " command";
        return false;
    }
    if (const FD* kind = m_r->f("command.kind")) {
        const auto value = m_r->value(std::string("kind.") + payload->name);
        if (!value) {
            error = "the contract has no command kind for " + std::string(payload->name);
            return false;
        }
        setInt(*command, kind, *value);
    }
    const FD* internalPayload = v1::MxCommand::descriptor()->FindFieldByNumber(cmd.kind_case());
    const gp::Message& src = cmd.GetReflection()->GetMessage(cmd, internalPayload);
    gp::Message* dst =
        command->GetReflection()->MutableMessage(command, wirePayload, &m_r->factory);
    const gp::Descriptor* sd = src.GetDescriptor();
    for (int i = 0; i < sd->field_count(); ++i) {
        const FD* sf = sd->field(i);
        const FD* df = m_r->f(std::string(payload->name) + "." + sf->name());
        if (df) {
            if (!copyField(src, sf, *dst, df)) {
                error = "cannot carry " + std::string(payload->name) + "." + sf->name();
                return false;
            }
        } else if (isSet(src, sf)) {
            // Never silently drop what the command asks for (a supervisory advise sent
            // as a plain one would change what the gateway does).
            error = "the contract's " + dst->GetDescriptor()->name() + " has no " + sf->name() +
                    " field";
            return false;
        }
    }
    out = m->SerializeAsString();
    return true;
}

bool WireCodec::decodeInvokeReply(const std::string& bytes, v1::MxCommandReply& out,
                                  std::string& error) const
{
    auto m = m_r->make(m_r->invoke->output_type());
    if (!parse(*m, bytes, error))
        return false;
    const gp::Reflection* r = m->GetReflection();
    out.Clear();
    if (const FD* f = m_r->f("reply.correlation_id"))
        out.set_client_correlation_id(r->GetString(*m, f));
    if (const FD* success = m_r->f("reply.success")) {
        out.set_success(r->GetBool(*m, success));
        if (const FD* f = m_r->f("reply.error_message"))
            out.set_error_message(r->GetString(*m, f));
    } else {
        const gp::Message& s = r->GetMessage(*m, m_r->f("reply.protocol_status"));
        const FD* code = m_r->f("status.code");
        const std::int64_t value =
            r->HasField(*m, m_r->f("reply.protocol_status")) ? getInt(s, code) : 0;
        const bool ok = value == m_r->value("status.ok").value_or(-1);
        out.set_success(ok);
        if (!ok) {
            const auto* name = code->enum_type()->FindValueByNumber(static_cast<int>(value));
            std::string text = name ? name->name() : "protocol status " + std::to_string(value);
            if (const FD* f = m_r->f("status.message");
                f && !s.GetReflection()->GetString(s, f).empty())
                text += ": " + s.GetReflection()->GetString(s, f);
            if (const FD* f = m_r->f("reply.hresult"); f && getInt(*m, f) != 0) {
                char hr[32];
                std::snprintf(hr, sizeof hr, " (HRESULT 0x%08" PRIX32 ")",
                              static_cast<std::uint32_t>(getInt(*m, f)));
                text += hr;
            }
            out.set_error_message(text);
        }
    }
    if (const FD* f = m_r->f("reply.register"); f && r->HasField(*m, f)) {
        const gp::Message& reg = r->GetMessage(*m, f);
        out.mutable_register_()->set_server_handle(
            static_cast<std::int32_t>(getInt(reg, m_r->f("register_reply.server_handle"))));
    }
    for (const char* name : kBulkReplies) {
        const FD* f = m_r->f(std::string("reply.") + name);
        if (!f || !r->HasField(*m, f))
            continue;
        const gp::Message& bulk = r->GetMessage(*m, f);
        v1::BulkItemReply* into = std::string(name) == "add_item_bulk"
                                      ? out.mutable_add_item_bulk()
                                      : out.mutable_subscribe_bulk();
        const FD* results = m_r->f("bulk.results");
        const gp::Reflection* br = bulk.GetReflection();
        for (int i = 0; i < br->FieldSize(bulk, results); ++i) {
            const gp::Message& item = br->GetRepeatedMessage(bulk, results, i);
            const gp::Reflection* ir = item.GetReflection();
            v1::ItemResult* result = into->add_results();
            result->set_tag_address(ir->GetString(item, m_r->f("result.tag_address")));
            result->set_item_handle(
                static_cast<std::int32_t>(getInt(item, m_r->f("result.item_handle"))));
            result->set_ok(ir->GetBool(item, m_r->f("result.ok")));
            if (const FD* e = m_r->f("result.error"))
                result->set_error(ir->GetString(item, e));
        }
    }
    if (const FD* f = m_r->f("reply.subscribe_alarms"); f && r->HasField(*m, f)) {
        const gp::Message& alarms = r->GetMessage(*m, f);
        v1::SubscribeAlarmsReply* into = out.mutable_subscribe_alarms();
        if (const FD* id = alarms.GetDescriptor()->FindFieldByName("subscription_id"))
            copyField(alarms, id, *into, into->GetDescriptor()->FindFieldByName("subscription_id"));
    }
    return true;
}

bool WireCodec::encodeStreamRequest(const v1::StreamEventsRequest& in, std::uint64_t resumeAfter,
                                    std::string& out, std::string& error) const
{
    auto m = m_r->make(m_r->events->input_type());
    m->GetReflection()->SetString(m.get(), m_r->f("events.session_id"), in.session_id());
    if (resumeAfter != 0) {
        const FD* f = m_r->f("events.resume_after");
        if (!f) {
            error = "the contract's event stream cannot resume from a sequence";
            return false;
        }
        setInt(*m, f, static_cast<std::int64_t>(resumeAfter));
    }
    out = m->SerializeAsString();
    return true;
}

// ---- the gateway's side
// ---------------------------------------------------------------------------

bool WireCodec::decodeOpenRequest(const std::string& bytes, v1::OpenSessionRequest& out,
                                  std::string& error) const
{
    auto m = m_r->make(m_r->open->input_type());
    if (!parse(*m, bytes, error))
        return false;
    out.Clear();
    const gp::Descriptor* d = out.GetDescriptor();
    if (const FD* f = m_r->f("open.client_name"))
        copyField(*m, f, out, d->FindFieldByName("client_name"));
    if (const FD* f = m_r->f("open.command_timeout"))
        copyField(*m, f, out, d->FindFieldByName("command_timeout"));
    return true;
}

bool WireCodec::encodeOpenReply(const v1::OpenSessionReply& in, std::string& out,
                                std::string&) const
{
    auto m = m_r->make(m_r->open->output_type());
    const gp::Descriptor* d = in.GetDescriptor();
    for (const auto& [role, name] : kOpenReplyFields)
        if (const FD* f = m_r->f(role))
            copyField(in, d->FindFieldByName(name), *m, f);
    if (const FD* status = m_r->f("open.protocol_status")) {
        gp::Message* s = m->GetReflection()->MutableMessage(m.get(), status, &m_r->factory);
        setInt(*s, m_r->f("status.code"), m_r->value("status.ok").value_or(0));
    }
    out = m->SerializeAsString();
    return true;
}

bool WireCodec::decodeCloseRequest(const std::string& bytes, v1::CloseSessionRequest& out,
                                   std::string& error) const
{
    auto m = m_r->make(m_r->close->input_type());
    if (!parse(*m, bytes, error))
        return false;
    out.set_session_id(m->GetReflection()->GetString(*m, m_r->f("close.session_id")));
    return true;
}

bool WireCodec::decodeInvokeRequest(const std::string& bytes, v1::MxCommandRequest& out,
                                    std::string& error) const
{
    auto m = m_r->make(m_r->invoke->input_type());
    if (!parse(*m, bytes, error))
        return false;
    const gp::Reflection* r = m->GetReflection();
    out.Clear();
    out.set_session_id(r->GetString(*m, m_r->f("invoke.session_id")));
    out.set_client_correlation_id(r->GetString(*m, m_r->f("invoke.correlation_id")));
    const gp::Message& command = r->GetMessage(*m, m_r->f("invoke.command"));
    const gp::Reflection* cr = command.GetReflection();
    for (const auto& p : kPayloads) {
        const FD* wirePayload = m_r->f(std::string("command.") + p.name);
        if (!wirePayload || !cr->HasField(command, wirePayload))
            continue;
        if (const FD* kind = m_r->f("command.kind")) {
            const auto expected = m_r->value(std::string("kind.") + p.name);
            if (!expected || getInt(command, kind) != *expected) {
                error = "command kind " + std::to_string(getInt(command, kind)) +
                        " does not match its " + p.name + " payload";
                return false;
            }
        }
        const gp::Message& src = cr->GetMessage(command, wirePayload);
        const FD* internalPayload = v1::MxCommand::descriptor()->FindFieldByNumber(p.kindCase);
        gp::Message* dst = out.mutable_command()->GetReflection()->MutableMessage(
            out.mutable_command(), internalPayload);
        const gp::Descriptor* dd = dst->GetDescriptor();
        for (int i = 0; i < dd->field_count(); ++i)
            if (const FD* sf = m_r->f(std::string(p.name) + "." + dd->field(i)->name()))
                copyField(src, sf, *dst, dd->field(i));
        return true;
    }
    std::vector<const FD*> set;
    cr->ListFields(command, &set);
    std::string named;
    for (const FD* f : set)
        if (f->cpp_type() == FD::CPPTYPE_MESSAGE)
            named = f->name();
    error = named.empty() ? "the command has no payload" : "command " + named + " is not served";
    return false;
}

bool WireCodec::encodeInvokeReply(const v1::MxCommandReply& in, std::string& out,
                                  std::string&) const
{
    auto m = m_r->make(m_r->invoke->output_type());
    const gp::Reflection* r = m->GetReflection();
    if (const FD* f = m_r->f("reply.correlation_id"))
        r->SetString(m.get(), f, in.client_correlation_id());
    if (const FD* success = m_r->f("reply.success")) {
        r->SetBool(m.get(), success, in.success());
        if (const FD* f = m_r->f("reply.error_message"))
            r->SetString(m.get(), f, in.error_message());
    } else {
        gp::Message* s = r->MutableMessage(m.get(), m_r->f("reply.protocol_status"), &m_r->factory);
        const FD* code = m_r->f("status.code");
        int value = m_r->value("status.ok").value_or(0);
        if (!in.success()) {
            // An MXAccess failure where the contract names one, else the first other value.
            const gp::EnumDescriptor* e = code->enum_type();
            const auto* failure = e->FindValueByName("PROTOCOL_STATUS_CODE_MXACCESS_FAILURE");
            value = failure ? failure->number() : -1;
            for (int i = 0; value < 0 && i < e->value_count(); ++i)
                if (e->value(i)->number() != 0 && e->value(i)->number() != m_r->value("status.ok"))
                    value = e->value(i)->number();
        }
        setInt(*s, code, value);
        if (const FD* f = m_r->f("status.message"))
            s->GetReflection()->SetString(s, f, in.error_message());
    }
    if (in.has_register_())
        if (const FD* f = m_r->f("reply.register")) {
            gp::Message* reg = r->MutableMessage(m.get(), f, &m_r->factory);
            setInt(*reg, m_r->f("register_reply.server_handle"), in.register_().server_handle());
        }
    for (const char* name : kBulkReplies) {
        const bool add = std::string(name) == "add_item_bulk";
        if (add ? !in.has_add_item_bulk() : !in.has_subscribe_bulk())
            continue;
        const FD* f = m_r->f(std::string("reply.") + name);
        if (!f)
            continue;
        const v1::BulkItemReply& bulk = add ? in.add_item_bulk() : in.subscribe_bulk();
        gp::Message* into = r->MutableMessage(m.get(), f, &m_r->factory);
        const FD* results = m_r->f("bulk.results");
        for (const v1::ItemResult& item : bulk.results()) {
            gp::Message* result = into->GetReflection()->AddMessage(into, results, &m_r->factory);
            const gp::Reflection* rr = result->GetReflection();
            rr->SetString(result, m_r->f("result.tag_address"), item.tag_address());
            setInt(*result, m_r->f("result.item_handle"), item.item_handle());
            rr->SetBool(result, m_r->f("result.ok"), item.ok());
            if (const FD* e = m_r->f("result.error"))
                rr->SetString(result, e, item.error());
        }
    }
    if (in.has_subscribe_alarms())
        if (const FD* f = m_r->f("reply.subscribe_alarms")) {
            gp::Message* alarms = r->MutableMessage(m.get(), f, &m_r->factory);
            if (const FD* id = alarms->GetDescriptor()->FindFieldByName("subscription_id"))
                copyField(in.subscribe_alarms(),
                          in.subscribe_alarms().GetDescriptor()->FindFieldByName("subscription_id"),
                          *alarms, id);
        }
    out = m->SerializeAsString();
    return true;
}

bool WireCodec::decodeStreamRequest(const std::string& bytes, v1::StreamEventsRequest& out,
                                    std::uint64_t& resumeAfter, std::string& error) const
{
    auto m = m_r->make(m_r->events->input_type());
    if (!parse(*m, bytes, error))
        return false;
    out.set_session_id(m->GetReflection()->GetString(*m, m_r->f("events.session_id")));
    resumeAfter = 0;
    if (const FD* f = m_r->f("events.resume_after"))
        resumeAfter = static_cast<std::uint64_t>(getInt(*m, f));
    return true;
}

} // namespace stormwatch::wire
