#pragma once
// The codec's resolved contract, shared by its two halves: wire_codec.cpp (sessions and
// commands, through reflection) and wire_events.cpp (events, by field number).

#include "wire_codec.h"

#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/coded_stream.h>
#include <string>
#include <unordered_map>

namespace stormwatch::wire {

namespace gp = google::protobuf;

// One field of an event, by number and type (0: the contract has none).
struct WireField {
    int number = 0;
    gp::FieldDescriptor::Type type = gp::FieldDescriptor::TYPE_INT32;

    explicit operator bool() const { return number != 0; }
};

// Where an event's parts are, by number: read and written straight from the wire.
struct EventLayout {
    WireField sequence;
    WireField family;
    int familyDataChange = -1; // the family value of a data change
    WireField batch;           // stormwatch: MxEvent.data_changes (a DataChangeBatch)
    WireField batchChanges;    // DataChangeBatch.changes
    bool changesOnEvent =
        false; // the published contract: one change per event, its fields on MxEvent
    WireField serverHandle, itemHandle, value, quality, timestamp;
    WireField vDouble, vFloat, vInt32, vInt64, vString, vBool;
    WireField notice, noticeKind, noticeMessage;
    WireField replayGap; // MxEvent.replay_gap, when the contract has it
};

struct WireCodec::Resolved {
    mutable gp::DynamicMessageFactory factory; // GetPrototype is thread-safe
    std::unordered_map<std::string, const gp::FieldDescriptor*> fields; // role → field
    std::unordered_map<std::string, int> enumValues;                    // role → number
    const gp::MethodDescriptor* open = nullptr;
    const gp::MethodDescriptor* close = nullptr;
    const gp::MethodDescriptor* invoke = nullptr;
    const gp::MethodDescriptor* events = nullptr;
    std::string openPath, closePath, invokePath, eventsPath;
    EventLayout layout;

    explicit Resolved(const gp::DescriptorPool* pool) : factory(pool) {}

    const gp::FieldDescriptor* f(const std::string& role) const
    {
        auto it = fields.find(role);
        return it == fields.end() ? nullptr : it->second;
    }
    std::optional<int> value(const std::string& role) const
    {
        auto it = enumValues.find(role);
        if (it == enumValues.end())
            return std::nullopt;
        return it->second;
    }
    std::unique_ptr<gp::Message> make(const gp::Descriptor* type) const
    {
        return std::unique_ptr<gp::Message>(factory.GetPrototype(type)->New());
    }
};

// Fills the event layout from the resolved roles (wire_events.cpp).
void resolveEventLayout(WireCodec::Resolved& r);
// One event from `in` (wire_events.cpp).
bool decodeEventFrom(const EventLayout& layout, google::protobuf::io::CodedInputStream& in,
                     MxEventBatch& out, EventMeta& meta);

} // namespace stormwatch::wire
