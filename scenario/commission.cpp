// The commissioning run: one ClientEngine over one GrpcGatewayPort per gateway, watched
// until every tag is Good or rejected by its gateway, or the timeout.
#include "scenario/commission.h"

#include "client/client_engine.h"
#include "client/engine_samples.h"
#include "client/grpc_gateway_port.h"
#include "client/log_text.h"
#include "client/qt_scheduler.h"
#include "scenario/scenario_runner.h"
#include "scenario/site_live.h"

#include <QEventLoop>
#include <QTimer>
#include <algorithm>
#include <cmath>

namespace stormwatch {

const char* toString(TagOutcome outcome)
{
    switch (outcome) {
    case TagOutcome::Good:
        return "good";
    case TagOutcome::Failed:
        return "failed";
    case TagOutcome::NoValue:
        return "no_value";
    }
    return "no_value";
}

FirstValueStats firstValueStats(std::vector<double> seconds)
{
    FirstValueStats s;
    if (seconds.empty())
        return s;
    std::sort(seconds.begin(), seconds.end());
    // Nearest rank: the smallest value with at least p % of the values at or below it.
    auto rank = [&](double p) {
        const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * double(seconds.size())));
        return seconds[std::clamp<std::size_t>(k, 1, seconds.size()) - 1];
    };
    s.p50 = rank(50);
    s.p95 = rank(95);
    s.max = seconds.back();
    return s;
}

QString CommissionReport::verdict() const
{
    if (allGood())
        return QStringLiteral("PASS: all %1 tags Good on %2 gateway(s)")
            .arg(counts.tags)
            .arg(gateways.size());
    return QStringLiteral("FAIL: %1 of %2 tags Good; %3 failed to add, %4 never received a value%5")
        .arg(counts.good)
        .arg(counts.tags)
        .arg(counts.failed)
        .arg(counts.noValue)
        .arg(timedOut ? QStringLiteral(" (timed out after %1 s)").arg(timeoutS) : QString());
}

namespace {

using Clock = std::chrono::steady_clock;

// A data change arrived: it carries a source timestamp, or at least a quality on a live item.
// A tag the subscribe failed is set Bad by the client without any value: not a value.
bool receivedValue(const Instance& instance, int tag)
{
    if (instance.tagRejected(tag))
        return false;
    const TagState& t = instance.tags()[std::size_t(tag)];
    return t.sourceTimestampUs != 0 || (t.itemHandle != 0 && t.quality != kQualityUncertain);
}

// Records each tag's first value as it arrives (the engine tells which tags changed).
class FirstValues : public EngineObserver {
public:
    FirstValues(const ClientEngine& engine, Clock::time_point start) : m_start(start)
    {
        for (const auto& i : engine.instances())
            m_at.emplace_back(i->tagNames().size());
    }
    void onTagsChanged(const Instance& instance, int index, const std::vector<int>& tags) override
    {
        const double now = std::chrono::duration<double>(Clock::now() - m_start).count();
        auto& at = m_at[std::size_t(index)];
        for (const int t : tags)
            if (!at[std::size_t(t)] && receivedValue(instance, t))
                at[std::size_t(t)] = now;
    }
    const std::optional<double>& at(std::size_t instance, std::size_t tag) const
    {
        return m_at[instance][tag];
    }

private:
    Clock::time_point m_start;
    std::vector<std::vector<std::optional<double>>> m_at;
};

CommissionCounts countsOf(const QList<const CommissionTag*>& tags)
{
    CommissionCounts c;
    std::vector<double> first;
    for (const CommissionTag* t : tags) {
        ++c.tags;
        if (t->outcome == TagOutcome::Good)
            ++c.good;
        else if (t->outcome == TagOutcome::Failed)
            ++c.failed;
        else
            ++c.noValue;
        if (t->firstValueS)
            first.push_back(*t->firstValueS);
    }
    c.firstValue = firstValueStats(std::move(first));
    return c;
}

} // namespace

std::optional<CommissionReport> commissionSite(const Site& site, const CommissionOptions& options,
                                               const std::function<void(const QString&)>& progress,
                                               QString* error)
{
    auto fail = [&](const QString& why) {
        if (error)
            *error = why;
        return std::nullopt;
    };
    // The flag is named when the preset is unknown; the rest of the engine's configuration
    // (options, connections, tags, their expected update periods) comes from the one place a
    // run's does: the site as a scenario.
    QString leverError;
    if (!leverPreset(options.variant, &leverError))
        return fail(QStringLiteral("--variant %1: %2").arg(options.variant, leverError));
    QString configError;
    EngineConfig config = engineConfigFor(siteScenario(site),
                                          VariantSpec{options.variant, QJsonValue(options.variant)},
                                          EngineConfig{}.seed, &configError);
    if (!configError.isEmpty())
        return fail(configError);
    QString portError;
    const auto portOptions = sitePortOptions(site, options.endpoints, &portError);
    if (!portOptions)
        return fail(portError);
    if (!(options.timeoutS > 0 && options.timeoutS <= kMaxCommissionTimeoutS))
        return fail(
            QStringLiteral("--timeout-s must be > 0 and <= %1").arg(kMaxCommissionTimeoutS));

    QtScheduler scheduler;
    std::vector<std::unique_ptr<GrpcGatewayPort>> ports;
    ClientEngine::GatewayPorts byName;
    QStringList endpoints;
    for (const SiteGateway& g : site.gateways) {
        const GrpcPortOptions& o = portOptions->at(g.name.toStdString());
        endpoints << QString::fromStdString(o.address);
        ports.push_back(std::make_unique<GrpcGatewayPort>(scheduler, o));
        byName.emplace(g.name.toStdString(), ports.back().get());
    }
    config.clientName = "stormwatch-commission";
    if (const std::string why = ClientEngine::validate(config, &byName); !why.empty())
        return fail(QString::fromStdString(why));

    CommissionReport report;
    report.site = site.name;
    report.siteFile = site.file;
    report.variant = options.variant;
    report.timeoutS = options.timeoutS;
    const Clock::time_point start = Clock::now();
    {
        ClientEngine engine(scheduler, byName, config);
        FirstValues firstValues(engine, start);
        engine.addObserver(&firstValues);
        engine.startConnections();
        engine.deployAll();

        // Settled: every tag Good or refused by its gateway (a definitive per-item error).
        auto settled = [&](int* good, int* rejected) {
            *good = *rejected = 0;
            int total = 0;
            for (const auto& i : engine.instances())
                for (int t = 0; t < int(i->tags().size()); ++t) {
                    const int quality = i->tags()[std::size_t(t)].quality;
                    ++total;
                    *good += quality == kQualityGood;
                    *rejected += quality != kQualityGood && failedToAdd(i->tagRejected(t), quality);
                }
            return *good + *rejected == total;
        };
        const qsizetype total = site.tagCount();
        auto lastProgress = Clock::now();
        QEventLoop loop;
        QTimer poll;
        poll.setInterval(50);
        QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
            int good = 0, rejected = 0;
            const bool done = settled(&good, &rejected);
            const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
            if (progress && (done || Clock::now() - lastProgress >= std::chrono::seconds(1))) {
                lastProgress = Clock::now();
                progress(
                    QStringLiteral("commission: %1 s: %2/%3 Good, %4 failed to add, %5 waiting")
                        .arg(elapsed, 0, 'f', 1)
                        .arg(good)
                        .arg(total)
                        .arg(rejected)
                        .arg(total - good - rejected));
            }
            if (done || elapsed >= options.timeoutS) {
                report.timedOut = !done;
                loop.quit();
            }
        });
        poll.start();
        loop.exec();
        poll.stop();
        report.durationS = std::chrono::duration<double>(Clock::now() - start).count();

        for (std::size_t c = 0; c < engine.connections().size(); ++c) {
            const GatewayConnection& conn = *engine.connections()[c];
            CommissionGateway g;
            g.name = QString::fromStdString(conn.name());
            g.endpoint = endpoints.value(qsizetype(c));
            g.state = QString::fromStdString(conn.stateText());
            g.lastError = QString::fromStdString(escapeLogText(conn.lastError(), 1000));
            for (const auto& cap : conn.capabilities())
                g.capabilities << QString::fromStdString(escapeLogText(cap, 200));
            if (conn.echoedCommandTimeout())
                g.echoedTimeoutS = double(conn.echoedCommandTimeout()->count()) / 1e6;
            const std::string_view advise = conn.adviseKind();
            g.adviseKind = QString::fromUtf8(advise.data(), qsizetype(advise.size()));
            for (const auto& [kind, n] : conn.stats().invokesByKind)
                if (kind == "add_item_bulk" || kind == "subscribe_bulk" || kind == "advise" ||
                    kind == "advise_supervisory" || kind == "advise_item_bulk" ||
                    kind == "add_item")
                    g.subscribeRpcs += n;
            g.invokes = conn.stats().invokes;
            report.gateways.append(g);
        }
        for (std::size_t i = 0; i < engine.instances().size(); ++i) {
            const Instance& inst = *engine.instances()[i];
            const SiteInstance& spec = site.instances[qsizetype(i)];
            for (std::size_t t = 0; t < inst.tags().size(); ++t) {
                const TagState& state = inst.tags()[t];
                CommissionTag tag;
                tag.gateway = spec.gateway;
                tag.instance = spec.name;
                tag.address = spec.tags[qsizetype(t)].address;
                tag.kind = spec.tags[qsizetype(t)].kind;
                tag.firstValueS = firstValues.at(i, t);
                tag.quality = state.quality;
                tag.value = state.value;
                const TagFailure* failure = inst.tagFailure(int(t));
                const std::string error = failure ? failure->error : std::string();
                if (state.quality == kQualityGood) {
                    tag.outcome = TagOutcome::Good;
                } else if (failedToAdd(failure && failure->rejected,
                                       state.quality)) { // the tag table's "Failed to add"
                    tag.outcome = TagOutcome::Failed;
                    tag.reason = QString::fromStdString(escapeLogText(error, 1000));
                } else {
                    tag.outcome = TagOutcome::NoValue;
                    tag.reason = !error.empty() ? QString::fromStdString(escapeLogText(error, 1000))
                                 : receivedValue(inst, int(t))
                                     ? QStringLiteral("quality %1, not Good").arg(state.quality)
                                     : QStringLiteral("no value received");
                }
                report.tags.append(tag);
            }
        }

        // Close every session (bounded: a gateway that does not answer gets 2 s).
        bool closed = false;
        engine.close([&closed] { closed = true; });
        const auto deadline = Clock::now() + std::chrono::seconds(2);
        while (!closed && Clock::now() < deadline) {
            QEventLoop wait;
            QTimer::singleShot(10, Qt::PreciseTimer, &wait, &QEventLoop::quit);
            wait.exec();
        }
        engine.removeObserver(&firstValues);
    }
    ports.clear(); // after the engine: its connections hold the ports

    QList<const CommissionTag*> all;
    std::map<QString, QList<const CommissionTag*>> byGateway, byInstance;
    for (const CommissionTag& t : report.tags) {
        all << &t;
        byGateway[t.gateway] << &t;
        byInstance[t.instance] << &t;
    }
    report.counts = countsOf(all);
    for (CommissionGateway& g : report.gateways)
        g.counts = countsOf(byGateway[g.name]);
    for (const SiteInstance& i : site.instances)
        report.instances.append(
            CommissionInstance{i.name, i.gateway, countsOf(byInstance[i.name])});
    return report;
}

} // namespace stormwatch
