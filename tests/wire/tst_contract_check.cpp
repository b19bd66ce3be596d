// The contract as data: loading a contract (compiled in, .proto, .protoset), choosing its
// profile, and the check that names each element found, missing or of the wrong type, with
// what the gateway cannot do. The published contract's file is checked as shipped, as
// protoc writes its descriptor set, renumbered, and with elements taken away.
#include "support_contracts.h"
#include "test_paths.h"
#include "wire/contract.h"
#include "wire/contract_check.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>

using namespace stormwatch::wire;
using Status = ElementCheck::Status;
using namespace contracts;

namespace {

bool hasLimit(const ContractCheck& check, const char* words)
{
    return std::any_of(check.limits.begin(), check.limits.end(),
                       [&](const std::string& l) { return l.find(words) != std::string::npos; });
}

} // namespace

class TestContractCheck : public QObject {
    Q_OBJECT

private slots:
    void compiledContractChecksUnderItsOwnProfileWithItsLimits()
    {
        auto contract = GatewayContract::compiled();
        QVERIFY(contract->isCompiled());
        const ContractProfile* profile = profileFor(*contract);
        QCOMPARE(std::string(profile->name), std::string("stormwatch"));
        const ContractCheck check = checkContract(contract, *profile);
        QVERIFY2(check.failures().empty(), check.report().c_str());
        // Our own contract has the proposed Lever 2 and Lever 3, but no event sequence.
        QCOMPARE(check.verdict(), Verdict::Limited);
        QVERIFY(hasLimit(check, "lost events cannot be counted"));
        QVERIFY(hasLimit(check, "re-subscribes"));
        QVERIFY(!hasLimit(check, "Lever 2"));
        QVERIFY(!hasLimit(check, "Lever 3"));
        QCOMPARE(check.field("subscribe_bulk.supervisory")->number(), 3);
        QCOMPARE(check.field("open.command_timeout")->number(), 4);
        QCOMPARE(check.rpcs[2].path, std::string("/mxgateway.v1.MxAccessGateway/Invoke"));
        QCOMPARE(check.writesPresent, std::vector<std::string>{"MxCommand.write"});
        QCOMPARE(check.exitCode(), 1);
    }

    void publishedContractChecksWithLever2FallingBack()
    {
        auto contract = load(kV1);
        QVERIFY(contract);
        const ContractProfile* profile = profileFor(*contract);
        QCOMPARE(std::string(profile->name), std::string("mxaccess-gateway-v1"));
        const ContractCheck check = checkContract(contract, *profile);
        QVERIFY2(check.failures().empty(), check.report().c_str());
        QCOMPARE(check.verdict(), Verdict::Limited);
        QCOMPARE(check.limits.size(), std::size_t(1));
        QVERIFY(hasLimit(check, "no supervisory flag: Lever 2 falls back"));
        QCOMPARE(check.element("subscribe_bulk.supervisory")->status, Status::Missing);
        // The seed's pinned numbers, and the published ones, are what the file says.
        QCOMPARE(check.field("open.command_timeout")->number(), 4);
        QCOMPARE(check.field("open.capabilities")->number(), 5);
        QCOMPARE(check.field("open.default_command_timeout")->number(), 6);
        QCOMPARE(check.field("open.protocol_version")->number(), 8);
        QCOMPARE(check.field("command.advise_supervisory")->number(), 17);
        QCOMPARE(check.element("status.ok")->number, 1);
        QCOMPARE(check.rpcs[3].path,
                 std::string("/mxaccess_gateway.v1.MxAccessGateway/StreamEvents"));
        for (const char* write : {"MxCommand.write", "MxCommand.write_secured"})
            QVERIFY(std::find(check.writesPresent.begin(), check.writesPresent.end(), write) !=
                    check.writesPresent.end());
        QVERIFY(check.report().find("stormwatch never sends them") != std::string::npos);
    }

    void aProtosetWrittenByProtocChecksAsItsProtoDoes()
    {
        std::string error;
        auto set = GatewayContract::fromFile(
            testpaths::buildFile(QStringLiteral("tests/contracts/mxaccess-gateway-v1.protoset"))
                .toStdString(),
            error);
        QVERIFY2(set, error.c_str());
        QVERIFY(!set->isCompiled());
        auto proto = load(kV1);
        const ContractCheck a = checkContract(set, *profileFor(*set));
        const ContractCheck b = checkContract(proto, *profileFor(*proto));
        QCOMPARE(std::string(a.profile->name), std::string(b.profile->name));
        QCOMPARE(a.verdict(), b.verdict());
        QCOMPARE(a.elements.size(), b.elements.size());
        for (std::size_t i = 0; i < a.elements.size(); ++i) {
            QCOMPARE(a.elements[i].status, b.elements[i].status);
            QCOMPARE(a.elements[i].number, b.elements[i].number);
        }
    }

    void aRenumberedCopyChecksWithTheNewNumbers()
    {
        QTemporaryDir dir;
        const QString original = readText(kV1);
        const QString renumbered = renumberFields(original, 100);
        QVERIFY(renumbered != original);
        auto contract = load(writeText(dir, "site-gateway.proto", renumbered));
        QVERIFY(contract);
        const ContractCheck check = checkContract(contract, *profileFor(*contract));
        const ContractCheck before = checkContract(load(kV1), *findProfile("mxaccess-gateway-v1"));
        QCOMPARE(check.verdict(), Verdict::Limited);
        int fields = 0;
        for (std::size_t i = 0; i < check.elements.size(); ++i) {
            if (check.elements[i].status != Status::Found || !check.elements[i].field)
                continue;
            QCOMPARE(check.elements[i].number, before.elements[i].number + 100);
            ++fields;
        }
        QVERIFY(fields > 40);
    }

    void aMissingFieldIsRefusedByNameWithTheFieldsThatAreThere()
    {
        QTemporaryDir dir;
        QString text = readText(kV1);
        const QString line = QStringLiteral("  int32 item_handle = 5;\n  MxValue value = 6;");
        QVERIFY(text.contains(line));
        text.replace(line, QStringLiteral("  MxValue value = 6;"));
        auto contract = load(writeText(dir, "no-item-handle.proto", text));
        QVERIFY(contract);
        const ContractCheck check = checkContract(contract, *findProfile("mxaccess-gateway-v1"));
        QCOMPARE(check.verdict(), Verdict::Unusable);
        QCOMPARE(check.exitCode(), 2);
        QCOMPARE(check.element("change.item_handle")->status, Status::Missing);
        const auto failures = check.failures();
        QCOMPARE(failures.size(), std::size_t(1));
        QVERIFY2(failures[0].find("MxEvent has no field item_handle") != std::string::npos,
                 failures[0].c_str());
        QVERIFY2(failures[0].find("server_handle = 4 (int32)") != std::string::npos,
                 failures[0].c_str());
        QVERIFY(check.summary().find("not usable") != std::string::npos);
    }

    void aFieldOfTheWrongTypeIsNamedWithBothTypes()
    {
        QTemporaryDir dir;
        QString text = readText(kV1);
        text.replace(QStringLiteral("  bool was_successful = 4;"),
                     QStringLiteral("  int32 was_successful = 4;"));
        text.replace(QStringLiteral("  uint64 worker_sequence = 2;"),
                     QStringLiteral("  string worker_sequence = 2;"));
        auto contract = load(writeText(dir, "wrong-types.proto", text));
        QVERIFY(contract);
        const ContractCheck check = checkContract(contract, *findProfile("mxaccess-gateway-v1"));
        QCOMPARE(check.verdict(), Verdict::Unusable);
        QCOMPARE(check.element("result.ok")->status, Status::WrongType);
        QCOMPARE(check.element("result.ok")->problem,
                 std::string("SubscribeResult.was_successful is int32, not bool"));
        // An optional element of the wrong type is not used: a limit, not a refusal.
        QCOMPARE(check.element("event.sequence")->status, Status::WrongType);
        QVERIFY(hasLimit(check, "lost events cannot be counted"));
    }

    void anEnumValueTheClientNeedsIsLookedUpByName()
    {
        QTemporaryDir dir;
        QString text = readText(kV1);
        text.replace(QStringLiteral("PROTOCOL_STATUS_CODE_OK = 1;"),
                     QStringLiteral("PROTOCOL_STATUS_CODE_SUCCESS = 1;"));
        auto contract = load(writeText(dir, "renamed-ok.proto", text));
        const ContractCheck check = checkContract(contract, *findProfile("mxaccess-gateway-v1"));
        QCOMPARE(check.verdict(), Verdict::Unusable);
        QCOMPARE(check.element("status.ok")->status, Status::Missing);
        const auto& candidates = check.element("status.ok")->candidates;
        QVERIFY(std::find(candidates.begin(), candidates.end(),
                          "PROTOCOL_STATUS_CODE_SUCCESS = 1") != candidates.end());
    }

    void anOptionalCommandTakesItsFieldsWithIt()
    {
        QTemporaryDir dir;
        QString text = readText(kV1);
        text.replace(QStringLiteral("    SubscribeBulkCommand subscribe_bulk = 13;\n"), QString());
        auto contract = load(writeText(dir, "no-subscribe-bulk.proto", text));
        const ContractCheck check = checkContract(contract, *findProfile("mxaccess-gateway-v1"));
        QCOMPARE(check.verdict(), Verdict::Limited);
        QCOMPARE(check.element("command.subscribe_bulk")->status, Status::Missing);
        QCOMPARE(check.element("subscribe_bulk.supervisory")->status, Status::NotNeeded);
        QCOMPARE(check.element("reply.subscribe_bulk")->status, Status::NotNeeded);
        QVERIFY(hasLimit(check, "no SubscribeBulk"));
        QVERIFY(!hasLimit(check, "no supervisory flag"));
    }

    void anotherPackageIsFollowedToItsService()
    {
        QTemporaryDir dir;
        QString text = readText(kV1);
        text.replace(QStringLiteral("package mxaccess_gateway.v1;"),
                     QStringLiteral("package site.gateway.v1;"));
        auto contract = load(writeText(dir, "site.proto", text));
        const ContractProfile* profile = profileFor(*contract);
        QCOMPARE(std::string(profile->name),
                 std::string("mxaccess-gateway-v1")); // the one that checks best
        const ContractCheck check = checkContract(contract, *profile);
        QCOMPARE(check.package, std::string("site.gateway.v1"));
        QCOMPARE(check.rpcs[0].path, std::string("/site.gateway.v1.MxAccessGateway/OpenSession"));
        QCOMPARE(check.verdict(), Verdict::Limited);
    }

    void theWrongProfileIsRefusedNotGuessed()
    {
        const ContractCheck check = checkContract(load(kV1), *findProfile("stormwatch"));
        QCOMPARE(check.verdict(), Verdict::Unusable);
        QVERIFY(!check.failures().empty());
        QVERIFY(check.report().find("MISSING") != std::string::npos);
    }

    void aContractWithoutTheServiceSaysWhatItHas()
    {
        QTemporaryDir dir;
        const QString path =
            writeText(dir, "other.proto",
                      "syntax = \"proto3\";\npackage x.v1;\nmessage Ping { string a = 1; }\n"
                      "service Other { rpc Echo(Ping) returns (Ping); }\n");
        const ContractCheck check = checkContract(load(path), *findProfile("mxaccess-gateway-v1"));
        QCOMPARE(check.verdict(), Verdict::Unusable);
        QCOMPARE(check.problem,
                 std::string(
                     "the contract has no service MxAccessGateway (services there: x.v1.Other)"));
    }

    void filesThatAreNoContractAreNamedWithTheReason()
    {
        QTemporaryDir dir;
        std::string error;
        QVERIFY(!GatewayContract::fromFile(dir.filePath("absent.proto").toStdString(), error));
        QVERIFY2(error.find("absent.proto' does not exist") != std::string::npos, error.c_str());

        const QString broken =
            writeText(dir, "broken.proto", "syntax = \"proto3\";\nmessage A {\n  int32 = 1;\n}\n");
        QVERIFY(!GatewayContract::fromFile(broken.toStdString(), error));
        QVERIFY2(error.find("broken.proto:3:") != std::string::npos, error.c_str());

        const QString badImport = writeText(
            dir, "imports.proto", "syntax = \"proto3\";\nimport \"missing/thing.proto\";\n");
        QVERIFY(!GatewayContract::fromFile(badImport.toStdString(), error));
        QVERIFY2(error.find("missing/thing.proto") != std::string::npos, error.c_str());

        const QString garbage = writeText(dir, "garbage.protoset", "not a descriptor set");
        QVERIFY(!GatewayContract::fromFile(garbage.toStdString(), error));
        QVERIFY2(error.find("is not a descriptor set") != std::string::npos, error.c_str());
    }

    // A file named like our compiled-in contract is read from disk, not taken from the
    // binary's own descriptors.
    void aSiteFileNamedLikeOursIsItsOwn()
    {
        QTemporaryDir dir;
        auto contract = load(writeText(dir, "mxaccess_gateway.proto", readText(kV1)));
        QVERIFY(contract);
        QCOMPARE(contract->packages(), std::vector<std::string>{"mxaccess_gateway.v1"});
    }

    // Every role is a read: no profile element reaches a write payload or a write kind.
    void noProfileHasARoleThatWrites()
    {
        for (const auto& profile : contractProfiles()) {
            QVERIFY(!profile.writePayloads.empty());
            for (const auto& e : profile.elements) {
                const std::string where = std::string(e.message) + "." + e.field + " " + e.role;
                QVERIFY2(where.find("rite") == std::string::npos, where.c_str());
                for (const char* write : profile.writePayloads)
                    QVERIFY2(std::string(e.field) != write, where.c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestContractCheck)
#include "tst_contract_check.moc"
