// Events straight from and to the wire, by field number: one decode per data change is the
// client's hot path, so no message objects are built. The layout (which number is what, and
// whether an event carries a batch of changes or is one change) is resolved once from the
// contract's descriptors.
#include "wire_codec_internal.h"

#include <algorithm>
#include <bit>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <limits>

namespace stormwatch::wire {

using FD = gp::FieldDescriptor;
using WFL = gp::internal::WireFormatLite;
using gp::io::CodedInputStream;
using gp::io::CodedOutputStream;

namespace {

WireField fieldOf(const WireCodec::Resolved& r, const char* role)
{
    WireField out;
    if (const FD* f = r.f(role)) {
        out.number = f->number();
        out.type = f->type();
    }
    return out;
}

// A scalar's raw bits as read for its wire type.
bool readRaw(CodedInputStream& in, WFL::WireType wt, std::uint64_t& raw)
{
    switch (wt) {
    case WFL::WIRETYPE_VARINT:
        return in.ReadVarint64(&raw);
    case WFL::WIRETYPE_FIXED64:
        return in.ReadLittleEndian64(&raw);
    case WFL::WIRETYPE_FIXED32: {
        std::uint32_t v = 0;
        const bool ok = in.ReadLittleEndian32(&v);
        raw = v;
        return ok;
    }
    default:
        return false;
    }
}

std::int64_t asInt(std::uint64_t raw, FD::Type type)
{
    switch (type) {
    case FD::TYPE_INT32:
    case FD::TYPE_ENUM:
        return static_cast<std::int32_t>(raw);
    case FD::TYPE_SINT32:
        return WFL::ZigZagDecode32(static_cast<std::uint32_t>(raw));
    case FD::TYPE_SFIXED32:
        return static_cast<std::int32_t>(static_cast<std::uint32_t>(raw));
    case FD::TYPE_UINT32:
    case FD::TYPE_FIXED32:
        return static_cast<std::uint32_t>(raw);
    case FD::TYPE_SINT64:
        return WFL::ZigZagDecode64(raw);
    case FD::TYPE_BOOL:
        return raw != 0;
    default:
        return static_cast<std::int64_t>(raw);
    }
}

double asReal(std::uint64_t raw, FD::Type type)
{
    if (type == FD::TYPE_FLOAT)
        return std::bit_cast<float>(static_cast<std::uint32_t>(raw));
    if (type == FD::TYPE_DOUBLE)
        return std::bit_cast<double>(raw);
    return static_cast<double>(asInt(raw, type));
}

// A length-delimited field's bytes as a limit on `in`; false when malformed.
template <class Fn> bool readNested(CodedInputStream& in, Fn&& fn)
{
    std::uint32_t length = 0;
    if (!in.ReadVarint32(&length))
        return false;
    const auto limit = in.PushLimit(static_cast<int>(length));
    const bool ok = fn() && in.BytesUntilLimit() == 0;
    in.PopLimit(limit);
    return ok;
}

struct Reader {
    const EventLayout& l;
    MxEventBatch& out;

    // The timestamp's seconds and nanos are Timestamp's own (1 and 2), clamped so that the
    // microseconds cannot overflow, whatever a peer sends.
    bool timestamp(CodedInputStream& in, std::int64_t& us)
    {
        std::int64_t seconds = 0;
        std::int64_t nanos = 0;
        const bool ok = readNested(in, [&] {
            while (const std::uint32_t tag = in.ReadTag()) {
                const auto wt = WFL::GetTagWireType(tag);
                std::uint64_t raw = 0;
                if (WFL::GetTagFieldNumber(tag) == 1 && wt == WFL::WIRETYPE_VARINT) {
                    if (!in.ReadVarint64(&raw))
                        return false;
                    seconds = static_cast<std::int64_t>(raw);
                } else if (WFL::GetTagFieldNumber(tag) == 2 && wt == WFL::WIRETYPE_VARINT) {
                    if (!in.ReadVarint64(&raw))
                        return false;
                    nanos = static_cast<std::int32_t>(raw);
                } else if (!WFL::SkipField(&in, tag)) {
                    return false;
                }
            }
            return true;
        });
        constexpr std::int64_t kMaxSeconds = std::numeric_limits<std::int64_t>::max() / 1000000 - 1;
        us = std::clamp(seconds, -kMaxSeconds, kMaxSeconds) * 1000000 +
             std::clamp<std::int64_t>(nanos, 0, 999'999'999) / 1000;
        return ok;
    }

    bool value(CodedInputStream& in, MxChange& c)
    {
        return readNested(in, [&] {
            while (const std::uint32_t tag = in.ReadTag()) {
                const int n = WFL::GetTagFieldNumber(tag);
                const auto wt = WFL::GetTagWireType(tag);
                std::uint64_t raw = 0;
                if (l.vString && n == l.vString.number && wt == WFL::WIRETYPE_LENGTH_DELIMITED) {
                    c.kind = MxValueKind::String;
                    c.text = out.texts.size();
                    out.texts.emplace_back();
                    if (!WFL::ReadString(&in, &out.texts.back()))
                        return false;
                    continue;
                }
                const bool scalar = wt == WFL::WIRETYPE_VARINT || wt == WFL::WIRETYPE_FIXED32 ||
                                    wt == WFL::WIRETYPE_FIXED64;
                if (scalar &&
                    ((l.vDouble && n == l.vDouble.number) || (l.vFloat && n == l.vFloat.number))) {
                    if (!readRaw(in, wt, raw))
                        return false;
                    c.kind = MxValueKind::Double;
                    c.number = asReal(raw, n == l.vDouble.number ? l.vDouble.type : l.vFloat.type);
                } else if (scalar && ((l.vInt64 && n == l.vInt64.number) ||
                                      (l.vInt32 && n == l.vInt32.number))) {
                    if (!readRaw(in, wt, raw))
                        return false;
                    c.kind = MxValueKind::Int;
                    c.integer = asInt(raw, n == l.vInt64.number ? l.vInt64.type : l.vInt32.type);
                } else if (scalar && l.vBool && n == l.vBool.number) {
                    if (!readRaw(in, wt, raw))
                        return false;
                    c.kind = MxValueKind::Bool;
                    c.integer = raw != 0;
                } else if (!WFL::SkipField(&in, tag)) {
                    return false;
                }
            }
            return true;
        });
    }

    // One field of a change (of a DataChange, or of the event itself); `handled` false when
    // the number is none of a change's.
    bool changeField(CodedInputStream& in, std::uint32_t tag, MxChange& c, bool& handled)
    {
        const int n = WFL::GetTagFieldNumber(tag);
        const auto wt = WFL::GetTagWireType(tag);
        handled = true;
        std::uint64_t raw = 0;
        if (n == l.value.number && wt == WFL::WIRETYPE_LENGTH_DELIMITED)
            return value(in, c);
        if (l.timestamp && n == l.timestamp.number && wt == WFL::WIRETYPE_LENGTH_DELIMITED)
            return timestamp(in, c.sourceTimestampUs);
        if (wt == WFL::WIRETYPE_LENGTH_DELIMITED) {
            handled = false;
            return true;
        }
        if (n == l.serverHandle.number) {
            if (!readRaw(in, wt, raw))
                return false;
            c.serverHandle = static_cast<std::int32_t>(asInt(raw, l.serverHandle.type));
        } else if (n == l.itemHandle.number) {
            if (!readRaw(in, wt, raw))
                return false;
            c.itemHandle = static_cast<std::int32_t>(asInt(raw, l.itemHandle.type));
        } else if (n == l.quality.number) {
            if (!readRaw(in, wt, raw))
                return false;
            c.quality = static_cast<std::int32_t>(asInt(raw, l.quality.type));
        } else {
            handled = false;
        }
        return true;
    }

    bool change(CodedInputStream& in)
    {
        MxChange& c = out.changes.emplace_back();
        return readNested(in, [&] {
            while (const std::uint32_t tag = in.ReadTag()) {
                bool handled = false;
                if (!changeField(in, tag, c, handled))
                    return false;
                if (!handled && !WFL::SkipField(&in, tag))
                    return false;
            }
            return true;
        });
    }

    bool batch(CodedInputStream& in)
    {
        return readNested(in, [&] {
            while (const std::uint32_t tag = in.ReadTag()) {
                if (WFL::GetTagFieldNumber(tag) == l.batchChanges.number &&
                    WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED) {
                    if (!change(in))
                        return false;
                } else if (!WFL::SkipField(&in, tag)) {
                    return false;
                }
            }
            return true;
        });
    }

    bool notice(CodedInputStream& in)
    {
        out.kind = MxEventBatch::Kind::Notice;
        return readNested(in, [&] {
            while (const std::uint32_t tag = in.ReadTag()) {
                const int n = WFL::GetTagFieldNumber(tag);
                if (n == l.noticeKind.number &&
                    WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED) {
                    if (!WFL::ReadString(&in, &out.noticeKind))
                        return false;
                } else if (n == l.noticeMessage.number &&
                           WFL::GetTagWireType(tag) == WFL::WIRETYPE_LENGTH_DELIMITED) {
                    if (!WFL::ReadString(&in, &out.noticeMessage))
                        return false;
                } else if (!WFL::SkipField(&in, tag)) {
                    return false;
                }
            }
            return true;
        });
    }
};

// ---- writing ------------------------------------------------------------------------------------

void writeInt(CodedOutputStream& out, const WireField& f, std::int64_t v)
{
    if (!f)
        return;
    switch (f.type) {
    case FD::TYPE_SINT32:
        WFL::WriteSInt32(f.number, static_cast<std::int32_t>(v), &out);
        break;
    case FD::TYPE_SFIXED32:
        WFL::WriteSFixed32(f.number, static_cast<std::int32_t>(v), &out);
        break;
    case FD::TYPE_FIXED32:
        WFL::WriteFixed32(f.number, static_cast<std::uint32_t>(v), &out);
        break;
    case FD::TYPE_UINT32:
        WFL::WriteUInt32(f.number, static_cast<std::uint32_t>(v), &out);
        break;
    case FD::TYPE_SINT64:
        WFL::WriteSInt64(f.number, v, &out);
        break;
    case FD::TYPE_SFIXED64:
        WFL::WriteSFixed64(f.number, v, &out);
        break;
    case FD::TYPE_FIXED64:
        WFL::WriteFixed64(f.number, static_cast<std::uint64_t>(v), &out);
        break;
    case FD::TYPE_UINT64:
        WFL::WriteUInt64(f.number, static_cast<std::uint64_t>(v), &out);
        break;
    case FD::TYPE_INT64:
        WFL::WriteInt64(f.number, v, &out);
        break;
    case FD::TYPE_BOOL:
        WFL::WriteBool(f.number, v != 0, &out);
        break;
    default:
        WFL::WriteInt32(f.number, static_cast<std::int32_t>(v), &out);
        break;
    }
}

template <class Fn>
void writeNested(CodedOutputStream& out, int number, std::string& scratch, Fn&& fill)
{
    scratch.clear();
    {
        gp::io::StringOutputStream stream(&scratch);
        CodedOutputStream nested(&stream);
        fill(nested);
    }
    WFL::WriteBytes(number, scratch, &out);
}

void writeValue(CodedOutputStream& out, const EventLayout& l, const MxEventBatch& batch,
                const MxChange& c)
{
    switch (c.kind) {
    case MxValueKind::Double:
        if (l.vDouble)
            WFL::WriteDouble(l.vDouble.number, c.number, &out);
        else if (l.vFloat)
            WFL::WriteFloat(l.vFloat.number, static_cast<float>(c.number), &out);
        break;
    case MxValueKind::Int:
        if (l.vInt64)
            writeInt(out, l.vInt64, c.integer);
        else if (l.vInt32)
            writeInt(out, l.vInt32, c.integer);
        break;
    case MxValueKind::Bool:
        writeInt(out, l.vBool, c.integer);
        break;
    case MxValueKind::String:
        if (l.vString)
            WFL::WriteString(l.vString.number, batch.textOf(c), &out);
        break;
    case MxValueKind::None:
        break;
    }
}

void writeChangeFields(CodedOutputStream& out, const EventLayout& l, const MxEventBatch& batch,
                       const MxChange& c)
{
    writeInt(out, l.serverHandle, c.serverHandle);
    writeInt(out, l.itemHandle, c.itemHandle);
    std::string valueBytes;
    writeNested(out, l.value.number, valueBytes,
                [&](CodedOutputStream& v) { writeValue(v, l, batch, c); });
    writeInt(out, l.quality, c.quality);
    if (l.timestamp) {
        // Floor division: a time before 1970 keeps its nanoseconds in [0, 1e9).
        std::int64_t seconds = c.sourceTimestampUs / 1'000'000;
        std::int64_t micros = c.sourceTimestampUs % 1'000'000;
        if (micros < 0) {
            --seconds;
            micros += 1'000'000;
        }
        std::string timestampBytes;
        writeNested(out, l.timestamp.number, timestampBytes, [&](CodedOutputStream& t) {
            if (seconds != 0)
                WFL::WriteInt64(1, seconds, &t);
            if (micros != 0)
                WFL::WriteInt32(2, static_cast<std::int32_t>(micros * 1000), &t);
        });
    }
}

} // namespace

void resolveEventLayout(WireCodec::Resolved& r)
{
    EventLayout& l = r.layout;
    l.sequence = fieldOf(r, "event.sequence");
    l.family = fieldOf(r, "event.family");
    l.familyDataChange = r.value("family.data_change").value_or(-1);
    l.batch = fieldOf(r, "event.data_changes");
    l.batchChanges = fieldOf(r, "batch.changes");
    l.serverHandle = fieldOf(r, "change.server_handle");
    l.itemHandle = fieldOf(r, "change.item_handle");
    l.value = fieldOf(r, "change.value");
    l.quality = fieldOf(r, "change.quality");
    l.timestamp = fieldOf(r, "change.source_timestamp");
    l.vDouble = fieldOf(r, "value.double");
    l.vFloat = fieldOf(r, "value.float");
    l.vInt32 = fieldOf(r, "value.int32");
    l.vInt64 = fieldOf(r, "value.int64");
    l.vString = fieldOf(r, "value.string");
    l.vBool = fieldOf(r, "value.bool");
    l.notice = fieldOf(r, "event.notice");
    l.noticeKind = fieldOf(r, "notice.kind");
    l.noticeMessage = fieldOf(r, "notice.message");
    const FD* item = r.f("change.item_handle");
    l.changesOnEvent = item && r.events && item->containing_type() == r.events->output_type();
    if (r.events)
        if (const FD* gap = r.events->output_type()->FindFieldByName("replay_gap");
            gap && gap->type() == FD::TYPE_MESSAGE) {
            l.replayGap.number = gap->number();
            l.replayGap.type = gap->type();
        }
}

bool WireCodec::decodeEvent(const std::string& bytes, MxEventBatch& out, EventMeta& meta) const
{
    CodedInputStream in(reinterpret_cast<const std::uint8_t*>(bytes.data()),
                        static_cast<int>(bytes.size()));
    return decodeEventFrom(m_r->layout, in, out, meta);
}

bool WireCodec::decodeEvent(gp::io::ZeroCopyInputStream& bytes, MxEventBatch& out,
                            EventMeta& meta) const
{
    CodedInputStream in(&bytes);
    return decodeEventFrom(m_r->layout, in, out, meta);
}

bool decodeEventFrom(const EventLayout& l, CodedInputStream& in, MxEventBatch& out, EventMeta& meta)
{
    out.clear();
    meta = EventMeta{};
    Reader reader{l, out};
    MxChange single;
    bool sawChange = false;
    std::int64_t family = -1;
    while (const std::uint32_t tag = in.ReadTag()) {
        const int n = WFL::GetTagFieldNumber(tag);
        const auto wt = WFL::GetTagWireType(tag);
        if (l.sequence && n == l.sequence.number && wt != WFL::WIRETYPE_LENGTH_DELIMITED) {
            std::uint64_t raw = 0;
            if (!readRaw(in, wt, raw))
                return false;
            meta.sequence = static_cast<std::uint64_t>(asInt(raw, l.sequence.type));
            continue;
        }
        if (l.family && n == l.family.number && wt == WFL::WIRETYPE_VARINT) {
            std::uint64_t raw = 0;
            if (!in.ReadVarint64(&raw))
                return false;
            family = asInt(raw, l.family.type);
            continue;
        }
        if (l.batch && n == l.batch.number && wt == WFL::WIRETYPE_LENGTH_DELIMITED) {
            out.kind = MxEventBatch::Kind::DataChanges;
            if (!reader.batch(in))
                return false;
            continue;
        }
        if (l.notice && n == l.notice.number && wt == WFL::WIRETYPE_LENGTH_DELIMITED) {
            if (!reader.notice(in))
                return false;
            continue;
        }
        if (l.replayGap && n == l.replayGap.number && wt == WFL::WIRETYPE_LENGTH_DELIMITED) {
            meta.replayGap = true;
            if (!WFL::SkipField(&in, tag))
                return false;
            continue;
        }
        if (l.changesOnEvent) {
            bool handled = false;
            if (!reader.changeField(in, tag, single, handled))
                return false;
            if (handled) {
                sawChange = true;
                continue;
            }
        }
        if (!WFL::SkipField(&in, tag))
            return false;
    }
    if (!in.ConsumedEntireMessage())
        return false;
    out.sequence = meta.sequence.value_or(0);
    out.firstSequence = out.sequence;
    // One change per event: a data change only when its family says so (or the contract has
    // no family), never a write completion that names an item.
    if (l.changesOnEvent && sawChange && (!l.family || family == l.familyDataChange)) {
        out.kind = MxEventBatch::Kind::DataChanges;
        out.changes.push_back(single);
    }
    return true;
}

bool WireCodec::encodeEvents(const MxEventBatch& in, std::uint64_t& sequence,
                             std::vector<std::string>& out) const
{
    const EventLayout& l = m_r->layout;
    out.clear();
    std::string scratch;
    // Events the gateway numbered keep their numbers (a batch of N changes covers
    // firstSequence..sequence); the rest are numbered on from `sequence`.
    if (in.firstSequence != 0)
        sequence = in.firstSequence - 1;
    const auto message = [&](auto&& fill) {
        std::string& bytes = out.emplace_back();
        gp::io::StringOutputStream stream(&bytes);
        CodedOutputStream o(&stream);
        if (l.sequence)
            writeInt(o, l.sequence, static_cast<std::int64_t>(++sequence));
        fill(o);
    };
    if (in.kind == MxEventBatch::Kind::Notice) {
        if (!l.notice)
            return false;
        message([&](CodedOutputStream& o) {
            writeNested(o, l.notice.number, scratch, [&](CodedOutputStream& n) {
                if (l.noticeKind)
                    WFL::WriteString(l.noticeKind.number, in.noticeKind, &n);
                if (l.noticeMessage)
                    WFL::WriteString(l.noticeMessage.number, in.noticeMessage, &n);
            });
        });
        return true;
    }
    if (in.kind != MxEventBatch::Kind::DataChanges)
        return true;
    if (l.changesOnEvent) {
        for (const MxChange& c : in.changes)
            message([&](CodedOutputStream& o) {
                writeInt(o, l.family, l.familyDataChange);
                writeChangeFields(o, l, in, c);
            });
        return true;
    }
    if (in.sequence != 0)
        sequence = in.sequence - 1; // one message for the whole batch: its last number
    message([&](CodedOutputStream& o) {
        std::string changeBytes;
        writeNested(o, l.batch.number, scratch, [&](CodedOutputStream& b) {
            for (const MxChange& c : in.changes)
                writeNested(b, l.batchChanges.number, changeBytes,
                            [&](CodedOutputStream& ch) { writeChangeFields(ch, l, in, c); });
        });
    });
    return true;
}

} // namespace stormwatch::wire
