#include "contract_profile.h"

namespace stormwatch::wire {

namespace {

using S = Shape;

constexpr const char* kDuration = ".google.protobuf.Duration";
constexpr const char* kTimestamp = ".google.protobuf.Timestamp";

// What each limit means to a user, said once for both families.
constexpr const char* kNoLever3 =
    "Lever 3 unavailable: the session command timeout cannot be sent; the gateway's "
    "default applies";
constexpr const char* kNoEcho =
    "the session's resolved command timeout is not echoed: the in-flight ceiling "
    "cannot follow it";
constexpr const char* kNoCapabilities =
    "no capabilities are advertised: Lever 2 falls back to the per-item fan-out";
constexpr const char* kNoSubscribeBulk =
    "no SubscribeBulk: every subscribe is AddItemBulk + per-item advise";
constexpr const char* kNoSupervisoryFlag =
    "SubscribeBulk has no supervisory flag: Lever 2 falls back to the "
    "per-item fan-out (AddItemBulk + AdviseSupervisory)";
constexpr const char* kNoSequence = "events carry no sequence: lost events cannot be counted";
constexpr const char* kNoResume =
    "the event stream cannot resume from a sequence: a stream break re-subscribes";
constexpr const char* kNoTimestamp =
    "data changes carry no source timestamp: its age cannot be shown";
constexpr const char* kNoPlainAdvise = "no plain Advise: items are advised supervisory only";
constexpr const char* kNoAlarms =
    "no alarm subscription command: the alarm guard has nothing to guard";
constexpr const char* kNoName = "the client's name is not given at OpenSession";
constexpr const char* kNoVersion = "the gateway's protocol version is not reported";
constexpr const char* kNoCorrelation =
    "replies do not echo the correlation id (not needed: replies are per call)";
constexpr const char* kNoErrorText = "a failed command's reason is not given in words";
constexpr const char* kNoHresult = "no HRESULT is given for a failed command";
constexpr const char* kNoValueKind = "values of this kind show as empty";

ContractProfile stormwatchProfile()
{
    return ContractProfile{
        "stormwatch",
        "stormwatch's own contract (proto/mxaccess_gateway.proto), with the proposed Lever 2",
        "mxgateway.v1",
        "MxAccessGateway",
        {
            {"open", "OpenSession", "OpenSessionRequest", "OpenSessionReply"},
            {"close", "CloseSession", "CloseSessionRequest", "CloseSessionReply"},
            {"invoke", "Invoke", "MxCommandRequest", "MxCommandReply"},
            {"events", "StreamEvents", "StreamEventsRequest", "MxEvent", true},
        },
        {
            {"open.client_name", "OpenSessionRequest", "client_name", S::String, false, nullptr,
             kNoName},
            {"open.command_timeout", "OpenSessionRequest", "command_timeout", S::Message, false,
             kDuration, kNoLever3},
            {"open.session_id", "OpenSessionReply", "session_id", S::String},
            {"open.capabilities", "OpenSessionReply", "capabilities", S::String, true, nullptr,
             kNoCapabilities},
            {"open.default_command_timeout", "OpenSessionReply", "default_command_timeout",
             S::Message, false, kDuration, kNoEcho},
            {"open.protocol_version", "OpenSessionReply", "gateway_protocol_version", S::Int32,
             false, nullptr, kNoVersion},
            {"close.session_id", "CloseSessionRequest", "session_id", S::String},
            {"invoke.session_id", "MxCommandRequest", "session_id", S::String},
            {"invoke.correlation_id", "MxCommandRequest", "client_correlation_id", S::String},
            {"invoke.command", "MxCommandRequest", "command", S::Message, false, "MxCommand"},
            {"command.register", "MxCommand", "register", S::Message, false, "RegisterCommand"},
            {"register.client_name", "RegisterCommand", "client_name", S::String},
            {"command.add_item_bulk", "MxCommand", "add_item_bulk", S::Message, false,
             "AddItemBulkCommand"},
            {"add_item_bulk.server_handle", "AddItemBulkCommand", "server_handle", S::Int32},
            {"add_item_bulk.tag_addresses", "AddItemBulkCommand", "tag_addresses", S::String, true},
            {"command.advise_supervisory", "MxCommand", "advise_supervisory", S::Message, false,
             "AdviseSupervisoryCommand"},
            {"advise_supervisory.server_handle", "AdviseSupervisoryCommand", "server_handle",
             S::Int32},
            {"advise_supervisory.item_handle", "AdviseSupervisoryCommand", "item_handle", S::Int32},
            {"command.advise", "MxCommand", "advise", S::Message, false, "AdviseCommand",
             kNoPlainAdvise},
            {"advise.server_handle", "AdviseCommand", "server_handle", S::Int32, false, nullptr,
             nullptr, "command.advise"},
            {"advise.item_handle", "AdviseCommand", "item_handle", S::Int32, false, nullptr,
             nullptr, "command.advise"},
            {"command.un_advise", "MxCommand", "un_advise", S::Message, false, "UnAdviseCommand"},
            {"un_advise.server_handle", "UnAdviseCommand", "server_handle", S::Int32},
            {"un_advise.item_handle", "UnAdviseCommand", "item_handle", S::Int32},
            {"command.remove_item", "MxCommand", "remove_item", S::Message, false,
             "RemoveItemCommand"},
            {"remove_item.server_handle", "RemoveItemCommand", "server_handle", S::Int32},
            {"remove_item.item_handle", "RemoveItemCommand", "item_handle", S::Int32},
            {"command.subscribe_bulk", "MxCommand", "subscribe_bulk", S::Message, false,
             "SubscribeBulkCommand", kNoSubscribeBulk},
            {"subscribe_bulk.server_handle", "SubscribeBulkCommand", "server_handle", S::Int32,
             false, nullptr, nullptr, "command.subscribe_bulk"},
            {"subscribe_bulk.tag_addresses", "SubscribeBulkCommand", "tag_addresses", S::String,
             true, nullptr, nullptr, "command.subscribe_bulk"},
            {"subscribe_bulk.supervisory", "SubscribeBulkCommand", "supervisory", S::Bool, false,
             nullptr, kNoSupervisoryFlag, "command.subscribe_bulk"},
            {"command.subscribe_alarms", "MxCommand", "subscribe_alarms", S::Message, false,
             "SubscribeAlarmsCommand", kNoAlarms},
            {"subscribe_alarms.server_handle", "SubscribeAlarmsCommand", "server_handle", S::Int32,
             false, nullptr, nullptr, "command.subscribe_alarms"},
            {"subscribe_alarms.area", "SubscribeAlarmsCommand", "area", S::String, false, nullptr,
             nullptr, "command.subscribe_alarms"},
            {"reply.correlation_id", "MxCommandReply", "client_correlation_id", S::String, false,
             nullptr, kNoCorrelation},
            {"reply.success", "MxCommandReply", "success", S::Bool},
            {"reply.error_message", "MxCommandReply", "error_message", S::String, false, nullptr,
             kNoErrorText},
            {"reply.register", "MxCommandReply", "register", S::Message, false, "RegisterReply"},
            {"register_reply.server_handle", "RegisterReply", "server_handle", S::Int32},
            {"reply.add_item_bulk", "MxCommandReply", "add_item_bulk", S::Message, false,
             "BulkItemReply"},
            {"reply.subscribe_bulk", "MxCommandReply", "subscribe_bulk", S::Message, false,
             "BulkItemReply", nullptr, "command.subscribe_bulk"},
            {"reply.subscribe_alarms", "MxCommandReply", "subscribe_alarms", S::Message, false,
             "SubscribeAlarmsReply", nullptr, "command.subscribe_alarms"},
            {"bulk.results", "BulkItemReply", "results", S::Message, true, "ItemResult"},
            {"result.tag_address", "ItemResult", "tag_address", S::String},
            {"result.item_handle", "ItemResult", "item_handle", S::Int32},
            {"result.ok", "ItemResult", "ok", S::Bool},
            {"result.error", "ItemResult", "error", S::String, false, nullptr, kNoErrorText},
            {"events.session_id", "StreamEventsRequest", "session_id", S::String},
            {"events.resume_after", "StreamEventsRequest", "after_worker_sequence", S::Sequence,
             false, nullptr, kNoResume},
            {"event.sequence", "MxEvent", "worker_sequence", S::Sequence, false, nullptr,
             kNoSequence},
            {"event.data_changes", "MxEvent", "data_changes", S::Message, false, "DataChangeBatch"},
            {"batch.changes", "DataChangeBatch", "changes", S::Message, true, "DataChange"},
            {"change.server_handle", "DataChange", "server_handle", S::Int32},
            {"change.item_handle", "DataChange", "item_handle", S::Int32},
            {"change.value", "DataChange", "value", S::Message, false, "MxValue"},
            {"change.quality", "DataChange", "quality", S::Int32},
            {"change.source_timestamp", "DataChange", "source_timestamp", S::Message, false,
             kTimestamp, kNoTimestamp},
            {"value.double", "MxValue", "double_value", S::Double},
            {"value.int64", "MxValue", "int_value", S::Int64, false, nullptr, kNoValueKind},
            {"value.string", "MxValue", "string_value", S::String, false, nullptr, kNoValueKind},
            {"value.bool", "MxValue", "bool_value", S::Bool, false, nullptr, kNoValueKind},
            {"event.notice", "MxEvent", "notice", S::Message, false, "SessionNotice",
             "the gateway cannot say why it ends a session"},
            {"notice.kind", "SessionNotice", "kind", S::String, false, nullptr, nullptr,
             "event.notice"},
            {"notice.message", "SessionNotice", "message", S::String, false, nullptr, nullptr,
             "event.notice"},
        },
        {"write"},
    };
}

// The published MXAccess Gateway, by the names its documentation and fixtures show.
ContractProfile publishedProfile()
{
    return ContractProfile{
        "mxaccess-gateway-v1",
        "the published MXAccess Gateway contract (package mxaccess_gateway.v1)",
        "mxaccess_gateway.v1",
        "MxAccessGateway",
        {
            {"open", "OpenSession", "OpenSessionRequest", "OpenSessionReply"},
            {"close", "CloseSession", "CloseSessionRequest", "CloseSessionReply"},
            {"invoke", "Invoke", "MxCommandRequest", "MxCommandReply"},
            {"events", "StreamEvents", "StreamEventsRequest", "MxEvent", true},
        },
        {
            {"open.client_name", "OpenSessionRequest", "client_session_name", S::String, false,
             nullptr, kNoName},
            {"open.command_timeout", "OpenSessionRequest", "command_timeout", S::Message, false,
             kDuration, kNoLever3},
            {"open.session_id", "OpenSessionReply", "session_id", S::String},
            {"open.capabilities", "OpenSessionReply", "capabilities", S::String, true, nullptr,
             kNoCapabilities},
            {"open.default_command_timeout", "OpenSessionReply", "default_command_timeout",
             S::Message, false, kDuration, kNoEcho},
            {"open.protocol_version", "OpenSessionReply", "gateway_protocol_version", S::Int32,
             false, nullptr, kNoVersion},
            {"open.protocol_status", "OpenSessionReply", "protocol_status", S::Message, false,
             "ProtocolStatus",
             "OpenSession reports no protocol status: a session is taken as opened when it has an "
             "id"},
            {"close.session_id", "CloseSessionRequest", "session_id", S::String},
            {"invoke.session_id", "MxCommandRequest", "session_id", S::String},
            {"invoke.correlation_id", "MxCommandRequest", "client_correlation_id", S::String},
            {"invoke.command", "MxCommandRequest", "command", S::Message, false, "MxCommand"},
            {"command.kind", "MxCommand", "kind", S::Enum, false, "MxCommandKind"},
            {"kind.register", "MxCommandKind", "MX_COMMAND_KIND_REGISTER", S::EnumValue},
            {"kind.add_item_bulk", "MxCommandKind", "MX_COMMAND_KIND_ADD_ITEM_BULK", S::EnumValue},
            {"kind.advise_supervisory", "MxCommandKind", "MX_COMMAND_KIND_ADVISE_SUPERVISORY",
             S::EnumValue},
            {"kind.advise", "MxCommandKind", "MX_COMMAND_KIND_ADVISE", S::EnumValue, false, nullptr,
             nullptr, "command.advise"},
            {"kind.un_advise", "MxCommandKind", "MX_COMMAND_KIND_UN_ADVISE", S::EnumValue},
            {"kind.remove_item", "MxCommandKind", "MX_COMMAND_KIND_REMOVE_ITEM", S::EnumValue},
            {"kind.subscribe_bulk", "MxCommandKind", "MX_COMMAND_KIND_SUBSCRIBE_BULK", S::EnumValue,
             false, nullptr, nullptr, "command.subscribe_bulk"},
            {"command.register", "MxCommand", "register", S::Message, false, "RegisterCommand"},
            {"register.client_name", "RegisterCommand", "client_name", S::String},
            {"command.add_item_bulk", "MxCommand", "add_item_bulk", S::Message, false,
             "AddItemBulkCommand"},
            {"add_item_bulk.server_handle", "AddItemBulkCommand", "server_handle", S::Int32},
            {"add_item_bulk.tag_addresses", "AddItemBulkCommand", "tag_addresses", S::String, true},
            {"command.advise_supervisory", "MxCommand", "advise_supervisory", S::Message, false,
             "AdviseSupervisoryCommand"},
            {"advise_supervisory.server_handle", "AdviseSupervisoryCommand", "server_handle",
             S::Int32},
            {"advise_supervisory.item_handle", "AdviseSupervisoryCommand", "item_handle", S::Int32},
            {"command.advise", "MxCommand", "advise", S::Message, false, "AdviseCommand",
             kNoPlainAdvise},
            {"advise.server_handle", "AdviseCommand", "server_handle", S::Int32, false, nullptr,
             nullptr, "command.advise"},
            {"advise.item_handle", "AdviseCommand", "item_handle", S::Int32, false, nullptr,
             nullptr, "command.advise"},
            {"command.un_advise", "MxCommand", "un_advise", S::Message, false, "UnAdviseCommand"},
            {"un_advise.server_handle", "UnAdviseCommand", "server_handle", S::Int32},
            {"un_advise.item_handle", "UnAdviseCommand", "item_handle", S::Int32},
            {"command.remove_item", "MxCommand", "remove_item", S::Message, false,
             "RemoveItemCommand"},
            {"remove_item.server_handle", "RemoveItemCommand", "server_handle", S::Int32},
            {"remove_item.item_handle", "RemoveItemCommand", "item_handle", S::Int32},
            {"command.subscribe_bulk", "MxCommand", "subscribe_bulk", S::Message, false,
             "SubscribeBulkCommand", kNoSubscribeBulk},
            {"subscribe_bulk.server_handle", "SubscribeBulkCommand", "server_handle", S::Int32,
             false, nullptr, nullptr, "command.subscribe_bulk"},
            {"subscribe_bulk.tag_addresses", "SubscribeBulkCommand", "tag_addresses", S::String,
             true, nullptr, nullptr, "command.subscribe_bulk"},
            {"subscribe_bulk.supervisory", "SubscribeBulkCommand", "supervisory", S::Bool, false,
             nullptr, kNoSupervisoryFlag, "command.subscribe_bulk"},
            {"reply.correlation_id", "MxCommandReply", "correlation_id", S::String, false, nullptr,
             kNoCorrelation},
            {"reply.protocol_status", "MxCommandReply", "protocol_status", S::Message, false,
             "ProtocolStatus"},
            {"status.code", "ProtocolStatus", "code", S::Enum, false, "ProtocolStatusCode"},
            {"status.ok", "ProtocolStatusCode", "PROTOCOL_STATUS_CODE_OK", S::EnumValue},
            {"status.message", "ProtocolStatus", "message", S::String, false, nullptr,
             kNoErrorText},
            {"reply.hresult", "MxCommandReply", "hresult", S::Int32, false, nullptr, kNoHresult},
            {"reply.register", "MxCommandReply", "register", S::Message, false, "RegisterReply"},
            {"register_reply.server_handle", "RegisterReply", "server_handle", S::Int32},
            {"reply.add_item_bulk", "MxCommandReply", "add_item_bulk", S::Message, false,
             "BulkSubscribeReply"},
            {"reply.subscribe_bulk", "MxCommandReply", "subscribe_bulk", S::Message, false,
             "BulkSubscribeReply", nullptr, "command.subscribe_bulk"},
            {"bulk.results", "BulkSubscribeReply", "results", S::Message, true, "SubscribeResult"},
            {"result.server_handle", "SubscribeResult", "server_handle", S::Int32, false, nullptr,
             "per-item results do not name their server handle (not needed: one per session)"},
            {"result.tag_address", "SubscribeResult", "tag_address", S::String},
            {"result.item_handle", "SubscribeResult", "item_handle", S::Int32},
            {"result.ok", "SubscribeResult", "was_successful", S::Bool},
            {"result.error", "SubscribeResult", "error_message", S::String, false, nullptr,
             kNoErrorText},
            {"events.session_id", "StreamEventsRequest", "session_id", S::String},
            {"events.resume_after", "StreamEventsRequest", "after_worker_sequence", S::Sequence,
             false, nullptr, kNoResume},
            {"event.sequence", "MxEvent", "worker_sequence", S::Sequence, false, nullptr,
             kNoSequence},
            {"event.family", "MxEvent", "family", S::Enum, false, "MxEventFamily"},
            {"family.data_change", "MxEventFamily", "MX_EVENT_FAMILY_ON_DATA_CHANGE", S::EnumValue},
            {"change.server_handle", "MxEvent", "server_handle", S::Int32},
            {"change.item_handle", "MxEvent", "item_handle", S::Int32},
            {"change.value", "MxEvent", "value", S::Message, false, "MxValue"},
            {"change.quality", "MxEvent", "quality", S::Int32},
            {"change.source_timestamp", "MxEvent", "source_timestamp", S::Message, false,
             kTimestamp, kNoTimestamp},
            {"value.double", "MxValue", "double_value", S::Double},
            {"value.float", "MxValue", "float_value", S::Float, false, nullptr, kNoValueKind},
            {"value.int32", "MxValue", "int32_value", S::Int32, false, nullptr, kNoValueKind},
            {"value.int64", "MxValue", "int64_value", S::Int64, false, nullptr, kNoValueKind},
            {"value.string", "MxValue", "string_value", S::String, false, nullptr, kNoValueKind},
            {"value.bool", "MxValue", "bool_value", S::Bool, false, nullptr, kNoValueKind},
        },
        {"write", "write2", "write_secured", "write_secured2", "write_bulk", "write2_bulk",
         "write_secured_bulk", "write_secured2_bulk"},
    };
}

} // namespace

const char* shapeName(Shape shape)
{
    switch (shape) {
    case Shape::String:
        return "string";
    case Shape::Int32:
        return "int32";
    case Shape::Int64:
        return "int64";
    case Shape::Sequence:
        return "an integer sequence (uint64)";
    case Shape::Bool:
        return "bool";
    case Shape::Double:
        return "double";
    case Shape::Float:
        return "float";
    case Shape::Bytes:
        return "bytes";
    case Shape::Message:
        return "message";
    case Shape::Enum:
        return "enum";
    case Shape::EnumValue:
        return "enum value";
    }
    return "?";
}

const ProfileElement* ContractProfile::element(std::string_view role) const
{
    for (const auto& e : elements)
        if (role == e.role)
            return &e;
    return nullptr;
}

const std::vector<ContractProfile>& contractProfiles()
{
    static const std::vector<ContractProfile> profiles{stormwatchProfile(), publishedProfile()};
    return profiles;
}

const ContractProfile* findProfile(std::string_view name)
{
    for (const auto& p : contractProfiles())
        if (name == p.name)
            return &p;
    return nullptr;
}

std::string profileNames()
{
    std::string out;
    for (const auto& p : contractProfiles())
        out += (out.empty() ? "" : ", ") + std::string(p.name);
    return out;
}

} // namespace stormwatch::wire
