// The one codec: the client's messages to and from each contract's wire, and the gateway's
// side of the same. Our own compiled contract is checked against protobuf's generated
// parser (what the codec writes is what a generated peer reads); the published contract
// through a round trip and by reading the wire message's fields by name; a renumbered copy
// to show the numbers come from the contract.
#include "support_contracts.h"
#include "wire/wire_codec.h"

#include <QTest>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/message_differencer.h>

using namespace stormwatch;
using namespace stormwatch::wire;
using namespace contracts;
namespace v1 = mxgateway::v1;
namespace gp = google::protobuf;

namespace {

std::shared_ptr<const WireCodec> codecFor(const std::shared_ptr<const GatewayContract>& contract)
{
    std::string error;
    auto codec = WireCodec::create(checkContract(contract, *profileFor(*contract)), error);
    if (!codec)
        qWarning("%s", error.c_str());
    return codec;
}

v1::MxCommandRequest subscribeRequest(bool supervisory)
{
    v1::MxCommandRequest r;
    r.set_session_id("s-1");
    r.set_client_correlation_id("gw1-7");
    auto* bulk = r.mutable_command()->mutable_subscribe_bulk();
    bulk->set_server_handle(3);
    bulk->add_tag_addresses("Area1.Pump.PV");
    bulk->add_tag_addresses("Area1.Pump.SP");
    bulk->set_supervisory(supervisory);
    return r;
}

v1::MxCommandReply bulkReply()
{
    v1::MxCommandReply reply;
    reply.set_client_correlation_id("gw1-7");
    reply.set_success(true);
    auto* a = reply.mutable_subscribe_bulk()->add_results();
    a->set_tag_address("Area1.Pump.PV");
    a->set_item_handle(11);
    a->set_ok(true);
    auto* b = reply.mutable_subscribe_bulk()->add_results();
    b->set_tag_address("Area1.Pump.SP");
    b->set_ok(false);
    b->set_error("unknown tag");
    return reply;
}

MxEventBatch batchOfEveryKind()
{
    MxEventBatch batch;
    batch.kind = MxEventBatch::Kind::DataChanges;
    MxChange d;
    d.serverHandle = 3;
    d.itemHandle = 11;
    d.quality = 192;
    d.kind = MxValueKind::Double;
    d.number = 21.5;
    d.sourceTimestampUs = 1'764'800'000'123'456;
    MxChange i = d;
    i.itemHandle = 12;
    i.kind = MxValueKind::Int;
    i.integer = -(std::int64_t(1) << 40);
    i.quality = 64;
    MxChange b = d;
    b.itemHandle = 13;
    b.kind = MxValueKind::Bool;
    b.integer = 1;
    b.quality = 0;
    b.sourceTimestampUs = -1'500'000; // before 1970: nanos stay in [0, 1e9)
    MxChange s = d;
    s.itemHandle = 14;
    s.kind = MxValueKind::String;
    s.text = 0;
    batch.texts.push_back("running");
    batch.changes = {d, i, b, s};
    return batch;
}

void compareChanges(const MxEventBatch& got, const MxEventBatch& want)
{
    QCOMPARE(got.changes.size(), want.changes.size());
    for (std::size_t k = 0; k < want.changes.size(); ++k) {
        const MxChange& g = got.changes[k];
        const MxChange& w = want.changes[k];
        QCOMPARE(g.serverHandle, w.serverHandle);
        QCOMPARE(g.itemHandle, w.itemHandle);
        QCOMPARE(g.quality, w.quality);
        QCOMPARE(int(g.kind), int(w.kind));
        QCOMPARE(g.sourceTimestampUs, w.sourceTimestampUs);
        if (w.kind == MxValueKind::String)
            QCOMPARE(got.textOf(g), want.textOf(w));
        else if (w.kind == MxValueKind::Double)
            QCOMPARE(g.number, w.number);
        else
            QCOMPARE(g.integer, w.integer);
    }
}

// A wire message of the contract, parsed by the contract's own descriptors.
std::unique_ptr<gp::Message> parseWire(gp::DynamicMessageFactory& factory,
                                       const gp::Descriptor* type, const std::string& bytes)
{
    std::unique_ptr<gp::Message> m(factory.GetPrototype(type)->New());
    if (!m->ParseFromString(bytes))
        qFatal("wire bytes of %s do not parse", type->full_name().c_str());
    return m;
}

} // namespace

class TestWireCodec : public QObject {
    Q_OBJECT

private slots:
    void compiledCodecWritesWhatTheGeneratedParserReads()
    {
        auto codec = WireCodec::compiled();
        QVERIFY(codec);
        QCOMPARE(codec->invokePath(), std::string("/mxgateway.v1.MxAccessGateway/Invoke"));
        const v1::MxCommandRequest request = subscribeRequest(true);
        std::string bytes, error;
        QVERIFY2(codec->encodeInvokeRequest(request, bytes, error), error.c_str());
        v1::MxCommandRequest parsed;
        QVERIFY(parsed.ParseFromString(bytes));
        QVERIFY2(gp::util::MessageDifferencer::Equals(parsed, request),
                 parsed.DebugString().c_str());

        v1::MxCommandReply back;
        QVERIFY(codec->decodeInvokeReply(bulkReply().SerializeAsString(), back, error));
        QVERIFY2(gp::util::MessageDifferencer::Equals(back, bulkReply()),
                 back.DebugString().c_str());

        v1::OpenSessionRequest open;
        open.set_client_name("stormwatch/gw1");
        open.mutable_command_timeout()->set_seconds(12);
        QVERIFY(codec->encodeOpenRequest(open, bytes, error));
        v1::OpenSessionRequest openParsed;
        QVERIFY(openParsed.ParseFromString(bytes));
        QVERIFY(gp::util::MessageDifferencer::Equals(openParsed, open));

        v1::OpenSessionReply reply;
        reply.set_session_id("s-9");
        reply.add_capabilities("bulk-subscribe-supervisory");
        reply.mutable_default_command_timeout()->set_seconds(12);
        reply.set_gateway_protocol_version(3);
        v1::OpenSessionReply replyBack;
        QVERIFY(codec->decodeOpenReply(reply.SerializeAsString(), replyBack, error));
        QVERIFY(gp::util::MessageDifferencer::Equals(replyBack, reply));
    }

    void compiledEventsAreTheGeneratedMxEvent()
    {
        auto codec = WireCodec::compiled();
        const MxEventBatch batch = batchOfEveryKind();
        std::uint64_t sequence = 0;
        std::vector<std::string> wire;
        QVERIFY(codec->encodeEvents(batch, sequence, wire));
        QCOMPARE(wire.size(), std::size_t(1)); // our contract batches
        QCOMPARE(sequence, std::uint64_t(0));  // and has no sequence
        v1::MxEvent event;
        QVERIFY(event.ParseFromString(wire[0]));
        QCOMPARE(event.data_changes().changes_size(), 4);
        QCOMPARE(event.data_changes().changes(1).value().int_value(), -(std::int64_t(1) << 40));
        QCOMPARE(event.data_changes().changes(2).source_timestamp().seconds(), std::int64_t(-2));
        QCOMPARE(event.data_changes().changes(2).source_timestamp().nanos(), 500'000'000);
        QCOMPARE(event.data_changes().changes(3).value().string_value(), std::string("running"));

        MxEventBatch back;
        EventMeta meta;
        QVERIFY(codec->decodeEvent(event.SerializeAsString(), back, meta));
        QVERIFY(!meta.sequence);
        compareChanges(back, batch);

        v1::MxEvent notice;
        notice.mutable_notice()->set_kind("gateway-restart");
        notice.mutable_notice()->set_message("restarting");
        QVERIFY(codec->decodeEvent(notice.SerializeAsString(), back, meta));
        QCOMPARE(int(back.kind), int(MxEventBatch::Kind::Notice));
        QCOMPARE(back.noticeKind, std::string("gateway-restart"));
    }

    void publishedCommandsCarryTheirKindAndRoundTrip()
    {
        auto contract = load(kV1);
        auto codec = codecFor(contract);
        QVERIFY(codec);
        QCOMPARE(codec->invokePath(), std::string("/mxaccess_gateway.v1.MxAccessGateway/Invoke"));
        QVERIFY(!codec->hasSupervisoryFlag());
        QVERIFY(codec->hasEventSequence());
        QVERIFY(codec->canResumeEvents());
        QVERIFY(codec->canSendCommandTimeout());

        v1::MxCommandRequest request = subscribeRequest(false);
        std::string bytes, error;
        QVERIFY2(codec->encodeInvokeRequest(request, bytes, error), error.c_str());
        gp::DynamicMessageFactory factory(&contract->pool());
        auto wire =
            parseWire(factory, contract->message("mxaccess_gateway.v1", "MxCommandRequest"), bytes);
        const gp::Message& command = wire->GetReflection()->GetMessage(
            *wire, wire->GetDescriptor()->FindFieldByName("command"));
        const auto* kind = command.GetDescriptor()->FindFieldByName("kind");
        QCOMPARE(command.GetReflection()->GetEnum(command, kind)->name(),
                 std::string("MX_COMMAND_KIND_SUBSCRIBE_BULK"));
        QVERIFY(command.GetReflection()->HasField(
            command, command.GetDescriptor()->FindFieldByName("subscribe_bulk")));

        v1::MxCommandRequest served;
        QVERIFY2(codec->decodeInvokeRequest(bytes, served, error), error.c_str());
        QVERIFY2(gp::util::MessageDifferencer::Equals(served, request),
                 served.DebugString().c_str());

        v1::MxCommandRequest advise;
        advise.mutable_command()->mutable_advise_supervisory()->set_server_handle(3);
        advise.mutable_command()->mutable_advise_supervisory()->set_item_handle(11);
        QVERIFY(codec->encodeInvokeRequest(advise, bytes, error));
        QVERIFY(codec->decodeInvokeRequest(bytes, served, error));
        QCOMPARE(served.command().advise_supervisory().item_handle(), 11);
    }

    void whatTheContractCannotCarryIsRefusedNotDropped()
    {
        auto codec = codecFor(load(kV1));
        std::string bytes, error;
        QVERIFY(!codec->encodeInvokeRequest(subscribeRequest(true), bytes, error));
        QVERIFY2(error.find("no supervisory field") != std::string::npos, error.c_str());
        v1::MxCommandRequest alarms;
        alarms.mutable_command()->mutable_subscribe_alarms()->set_area("Area1");
        QVERIFY(!codec->encodeInvokeRequest(alarms, bytes, error));
        QVERIFY2(error.find("no subscribe_alarms command") != std::string::npos, error.c_str());
        v1::StreamEventsRequest stream;
        stream.set_session_id("s-1");
        QVERIFY(
            codec->encodeStreamRequest(stream, 42, bytes, error)); // the published stream resumes
        QVERIFY(
            !WireCodec::compiled()->encodeStreamRequest(stream, 42, bytes, error)); // ours does not
        QVERIFY2(error.find("cannot resume") != std::string::npos, error.c_str());
    }

    void noWriteCanBeEncodedForAnyContract()
    {
        for (const auto& codec : {WireCodec::compiled(), codecFor(load(kV1))}) {
            v1::MxCommandRequest write;
            write.set_session_id("s-1");
            write.mutable_command()->mutable_write()->set_item_handle(11);
            write.mutable_command()->mutable_write()->mutable_value()->set_double_value(1);
            std::string bytes, error;
            QVERIFY(!codec->encodeInvokeRequest(write, bytes, error));
            QCOMPARE(error, std::string("stormwatch never sends a write (write)"));
            QVERIFY(bytes.empty());
        }
    }

    void aFailedReplyNamesItsStatusAndHresult()
    {
        auto contract = load(kV1);
        auto codec = codecFor(contract);
        v1::MxCommandReply failed;
        failed.set_success(false);
        failed.set_error_message("MXAccess rejected the advise.");
        std::string bytes, error;
        QVERIFY(codec->encodeInvokeReply(failed, bytes, error));
        gp::DynamicMessageFactory factory(&contract->pool());
        auto wire =
            parseWire(factory, contract->message("mxaccess_gateway.v1", "MxCommandReply"), bytes);
        wire->GetReflection()->SetInt32(
            wire.get(), wire->GetDescriptor()->FindFieldByName("hresult"), -2147220992);
        v1::MxCommandReply back;
        QVERIFY(codec->decodeInvokeReply(wire->SerializeAsString(), back, error));
        QVERIFY(!back.success());
        QCOMPARE(back.error_message(),
                 std::string("PROTOCOL_STATUS_CODE_MXACCESS_FAILURE: MXAccess rejected the "
                             "advise. (HRESULT 0x80040200)"));

        QVERIFY(codec->encodeInvokeReply(bulkReply(), bytes, error));
        QVERIFY(codec->decodeInvokeReply(bytes, back, error));
        QVERIFY(back.success());
        QCOMPARE(back.subscribe_bulk().results_size(), 2);
        QCOMPARE(back.subscribe_bulk().results(1).error(), std::string("unknown tag"));
        QVERIFY(!back.subscribe_bulk().results(1).ok());
    }

    void publishedEventsAreOnePerChangeWithSequences()
    {
        auto contract = load(kV1);
        auto codec = codecFor(contract);
        const MxEventBatch batch = batchOfEveryKind();
        std::uint64_t sequence = 41;
        std::vector<std::string> wire;
        QVERIFY(codec->encodeEvents(batch, sequence, wire));
        QCOMPARE(wire.size(), batch.changes.size());
        QCOMPARE(sequence, std::uint64_t(45));
        MxEventBatch all;
        all.texts = batch.texts;
        for (std::size_t k = 0; k < wire.size(); ++k) {
            MxEventBatch one;
            EventMeta meta;
            QVERIFY(codec->decodeEvent(wire[k], one, meta));
            QCOMPARE(meta.sequence.value_or(0), std::uint64_t(42 + k));
            QCOMPARE(one.changes.size(), std::size_t(1));
            MxChange c = one.changes[0];
            if (c.kind == MxValueKind::String) {
                QCOMPARE(one.textOf(c), std::string("running"));
                c.text = 0;
            }
            all.changes.push_back(c);
        }
        all.kind = MxEventBatch::Kind::DataChanges;
        compareChanges(all, batch);

        // An event of another family that names an item is no data change.
        gp::DynamicMessageFactory factory(&contract->pool());
        auto event =
            parseWire(factory, contract->message("mxaccess_gateway.v1", "MxEvent"), wire[0]);
        const auto* family = event->GetDescriptor()->FindFieldByName("family");
        event->GetReflection()->SetEnumValue(event.get(), family, 2); // ON_WRITE_COMPLETE
        MxEventBatch none;
        EventMeta meta;
        QVERIFY(codec->decodeEvent(event->SerializeAsString(), none, meta));
        QVERIFY(none.changes.empty());
    }

    void numbersComeFromTheContractNotFromCode()
    {
        QTemporaryDir dir;
        auto renumbered = load(writeText(dir, "site.proto", renumberFields(readText(kV1), 100)));
        auto codec = codecFor(renumbered);
        auto original = codecFor(load(kV1));
        QVERIFY(codec && original);
        std::string bytes, error;
        QVERIFY(codec->encodeInvokeRequest(subscribeRequest(false), bytes, error));
        v1::MxCommandRequest served;
        QVERIFY2(codec->decodeInvokeRequest(bytes, served, error), error.c_str());
        QCOMPARE(served.command().subscribe_bulk().tag_addresses_size(), 2);
        // The original contract's numbers do not read it: the session id is field 101 now.
        QVERIFY(!original->decodeInvokeRequest(bytes, served, error) ||
                served.session_id().empty());

        const MxEventBatch batch = batchOfEveryKind();
        std::uint64_t sequence = 0;
        std::vector<std::string> wire;
        QVERIFY(codec->encodeEvents(batch, sequence, wire));
        MxEventBatch one;
        EventMeta meta;
        QVERIFY(codec->decodeEvent(wire[0], one, meta));
        QCOMPARE(one.changes.size(), std::size_t(1));
        QCOMPARE(one.changes[0].itemHandle, 11);
        QVERIFY(original->decodeEvent(wire[0], one, meta));
        QVERIFY(one.changes.empty()); // nothing it knows
    }

    void anUnusableContractHasNoCodec()
    {
        QTemporaryDir dir;
        QString text = readText(kV1);
        text.replace(QStringLiteral("  int32 item_handle = 3;\n  bool was_successful"),
                     QStringLiteral("  bool was_successful"));
        auto contract = load(writeText(dir, "no-result-handle.proto", text));
        std::string error;
        QVERIFY(!WireCodec::create(checkContract(contract, *findProfile("mxaccess-gateway-v1")),
                                   error));
        QVERIFY2(error.find("SubscribeResult has no field item_handle") != std::string::npos,
                 error.c_str());
    }

    void hostileEventBytesAreRefusedOrClamped()
    {
        auto codec = codecFor(load(kV1));
        MxEventBatch out;
        EventMeta meta;
        QVERIFY(!codec->decodeEvent(std::string("\x2a\xff\xff\xff\xff\x0f", 6), out,
                                    meta));                              // a length past the end
        QVERIFY(!codec->decodeEvent(std::string("\x07", 1), out, meta)); // a bad wire type
        // An absurd timestamp (seconds at the int64 limit, nanos past 1e9) is clamped.
        std::string ts;
        ts += '\x08';
        for (int i = 0; i < 8; ++i)
            ts += '\xff';
        ts += '\x7f';                     // seconds = INT64_MAX (varint)
        ts += "\x10\xff\xff\xff\xff\x07"; // nanos = INT32_MAX
        std::string event = "\x18\x01";   // family ON_DATA_CHANGE (field 3)
        event += "\x28\x0b";              // item handle 11 (field 5)
        event += '\x42';                  // source timestamp (field 8)
        event += char(ts.size());
        event += ts;
        QVERIFY(codec->decodeEvent(event, out, meta));
        QCOMPARE(out.changes.size(), std::size_t(1));
        QVERIFY(out.changes[0].sourceTimestampUs > 0);
    }
};

QTEST_GUILESS_MAIN(TestWireCodec)
#include "tst_wire_codec.moc"
