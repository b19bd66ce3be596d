// Decoding the wire MxEvent into the native batch the connection reads (split from
// grpc_gateway_port.cpp): it runs once per data change, on the stream's reader thread.
#include "grpc_gateway_port.h"

#include <algorithm>
#include <limits>

namespace stormwatch {

using namespace mxgateway::v1;

void decodeEvent(const MxEvent& wire, MxEventBatch& out)
{
    out.clear();
    if (wire.has_notice()) {
        out.kind = MxEventBatch::Kind::Notice;
        out.noticeKind = wire.notice().kind();
        out.noticeMessage = wire.notice().message();
        return;
    }
    if (!wire.has_data_changes())
        return;
    out.kind = MxEventBatch::Kind::DataChanges;
    const auto& changes = wire.data_changes().changes();
    out.changes.resize(std::size_t(changes.size()));
    // The changes of one batch mostly share their timestamp: converted once.
    std::int64_t lastSeconds = 0;
    std::int32_t lastNanos = 0;
    std::int64_t lastUs = 0;
    MxChange* c = out.changes.data();
    for (const DataChange& change : changes) {
        c->serverHandle = change.server_handle();
        c->itemHandle = change.item_handle();
        c->quality = change.quality();
        const MxValue& v = change.value();
        switch (v.kind_case()) {
        case MxValue::kDoubleValue:
            c->kind = MxValueKind::Double;
            c->number = v.double_value();
            break;
        case MxValue::kIntValue:
            c->kind = MxValueKind::Int;
            c->integer = v.int_value();
            break;
        case MxValue::kBoolValue:
            c->kind = MxValueKind::Bool;
            c->integer = v.bool_value() ? 1 : 0;
            break;
        case MxValue::kStringValue:
            c->kind = MxValueKind::String;
            c->text = out.texts.size();
            out.texts.push_back(v.string_value());
            break;
        default:
            c->kind = MxValueKind::None;
            c->number = 0;
            break;
        }
        const auto& ts = change.source_timestamp();
        if (ts.seconds() != lastSeconds || ts.nanos() != lastNanos) {
            constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1000000 - 1;
            const std::int64_t s = std::clamp<std::int64_t>(ts.seconds(), -kMaxSeconds, kMaxSeconds);
            // Nanos outside a Timestamp's [0, 1e9) are clamped too: with clamped seconds,
            // a peer's INT32_MAX nanos would otherwise overflow the sum.
            const std::int32_t nanos = std::clamp<std::int32_t>(ts.nanos(), 0, 999'999'999);
            lastSeconds = ts.seconds();
            lastNanos = ts.nanos();
            lastUs = s * 1000000 + nanos / 1000;
        }
        c->sourceTimestampUs = lastUs;
        ++c;
    }
}

} // namespace stormwatch
