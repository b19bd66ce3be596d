// The mock's API keys (mxgw-mock --api-keys): the file's form and its errors, and what each
// call gets: a missing or unknown key UNAUTHENTICATED, a key without the method's scope
// PERMISSION_DENIED naming the scope; the secret never appears in an answer.
#include "gateway/api_keys.h"

#include <QTest>

using namespace stormwatch::gateway;

class TestApiKeys : public QObject {
    Q_OBJECT
private slots:
    void eachMethodNeedsItsScope()
    {
        std::string error;
        const auto keys =
            ApiKeys::parse("# comment\n"
                           "mxgw_reader_s3cret session:open,session:close,events:read\n"
                           "\n"
                           "mxgw_ops_t0ken admin  # everything\n",
                           "keys.txt", error);
        QVERIFY2(keys, error.c_str());
        QCOMPARE(keys->size(), std::size_t(2));
        QCOMPARE(ApiKeys::scopeFor("OpenSession"), std::string_view("session:open"));
        QCOMPARE(ApiKeys::scopeFor("Invoke"), std::string_view("invoke:read"));
        QCOMPARE(ApiKeys::scopeFor("StreamEvents"), std::string_view("events:read"));

        QVERIFY(keys->authorize("Bearer mxgw_reader_s3cret", "session:open").ok());
        QVERIFY(keys->authorize("Bearer mxgw_reader_s3cret", "events:read").ok());
        const CallStatus denied = keys->authorize("Bearer mxgw_reader_s3cret", "invoke:read");
        QCOMPARE(denied.code, grpc::StatusCode::PERMISSION_DENIED);
        QVERIFY2(denied.message.find("API key reader lacks the scope invoke:read") !=
                     std::string::npos,
                 denied.message.c_str());
        QVERIFY(denied.message.find("s3cret") == std::string::npos);
        QVERIFY(keys->authorize("Bearer mxgw_ops_t0ken", "invoke:read").ok()); // admin

        QCOMPARE(keys->authorize("", "session:open").code, grpc::StatusCode::UNAUTHENTICATED);
        QCOMPARE(keys->authorize("Basic abc", "session:open").code,
                 grpc::StatusCode::UNAUTHENTICATED);
        const CallStatus unknown = keys->authorize("Bearer mxgw_reader_wrong", "session:open");
        QCOMPARE(unknown.code, grpc::StatusCode::UNAUTHENTICATED);
        QVERIFY(unknown.message.find("wrong") == std::string::npos);
    }

    void aBadFileIsNamedByLine()
    {
        std::string error;
        QVERIFY(
            !ApiKeys::parse("mxgw_a_b session:open\nnot-a-key session:open\n", "keys.txt", error));
        QCOMPARE(error,
                 std::string("keys.txt:2: must be 'mxgw_<key-id>_<secret> scope[,scope...]'"));
        QVERIFY(!ApiKeys::parse("mxgw_a_b session:open,invoke:everything\n", "keys.txt", error));
        QVERIFY2(error.find("keys.txt:1: unknown scope 'invoke:everything'") == 0, error.c_str());
        QVERIFY(!ApiKeys::parse("# nothing\n", "keys.txt", error));
        QCOMPARE(error, std::string("keys.txt: no key"));
        QVERIFY(!ApiKeys::load("/nonexistent/keys.txt", error));
        QCOMPARE(error, std::string("cannot read the API key file '/nonexistent/keys.txt'"));
    }
};

QTEST_GUILESS_MAIN(TestApiKeys)
#include "tst_api_keys.moc"
