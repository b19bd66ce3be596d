#pragma once

// The watch service: one site watched for as long as the process runs. It subscribes every
// instance of the site with the chosen levers — the console's live run, headless, on the one
// run host — and keeps going across gateway restarts (each connection reconnects and
// re-subscribes on its own). What it sees is served to Prometheus (FleetMetrics on /metrics)
// and, when asked, recorded to a rolling recording: a file a day, the oldest removed after
// keepDays, so last night's incident can be replayed in the console the next morning.
//
// reload() re-reads the site file: a changed site restarts the run on it (sessions closed and
// opened again; instances added are deployed, removed ones are gone from /metrics, counters of
// the rest carry on); a file with errors is refused with them, and the running site kept.

#include "scenario/run_host.h"
#include "scenario/site.h"
#include "scenario/site_live.h"

#include <QDate>
#include <QObject>
#include <QString>
#include <QTimer>
#include <map>
#include <memory>
#include <optional>

namespace prometheus {
class Exposer;
class Collectable;
} // namespace prometheus

namespace stormwatch {

class FleetMetrics;
class Recorder;

struct WatchOptions {
    QString siteFile;
    QString variant = QStringLiteral("all");                  // a lever preset
    QString metricsListen = QStringLiteral("127.0.0.1:9464"); // HOST:PORT, port 0 = any free
    bool allowRemote = false;             // a metrics address other than loopback
    std::map<QString, QString> endpoints; // gateway name -> host:port, over the site's own
    QString recordDir;                    // "" = no recording
    int keepDays = 7;                     // recordings older than this are removed
};
inline constexpr int kMaxKeepDays = 3660;

class WatchService : public QObject {
    Q_OBJECT
public:
    explicit WatchService(WatchOptions options, QObject* parent = nullptr);
    ~WatchService() override; // stop()

    // Loads the site, serves /metrics and starts watching. False with *error: bad input (set
    // *badInput: a site with errors, every one a line; an unknown preset; a metrics address
    // that is not loopback without allowRemote), or what cannot be done (an address that
    // cannot be bound, a record directory that cannot be made, a run that cannot start).
    bool start(QString* error, bool* badInput = nullptr);
    // Re-reads the site file (SIGHUP).
    void reload();
    // Closes every gateway session (bounded), ends the recording and stops serving.
    void stop();

    // The port /metrics is served on (the one bound when asked for port 0); 0 before start().
    int metricsPort() const { return m_port; }
    const FleetMetrics& metrics() const { return *m_metrics; }
    RunHost& host() { return m_host; }
    // The recording being written ("" when none).
    QString recordingPath() const;

    // "HOST:PORT" checked: a port 0..65535 and, unless allowRemote, a loopback host. The
    // address to bind (localhost is 127.0.0.1), or nullopt with *error.
    static std::optional<QString> bindAddress(const QString& listen, bool allowRemote,
                                              QString* error);

signals:
    // What the service says: its own lines and the engine's log, for the journal.
    void line(const QString& text);

private:
    struct Loaded {
        Site site;
        SitePortOptions ports;
    };
    std::optional<Loaded> load(QString* error);
    bool startRun(QString* error);
    void openRecording();
    void rotateRecording();
    // The site's name made safe for a file name: every recording is "<base>-<date>T<time>.sqlite".
    QString recordingBase() const;
    void pruneRecordings();

    WatchOptions m_options;
    LeverSet m_levers;
    std::optional<Loaded> m_loaded;
    RunHost m_host;
    std::shared_ptr<FleetMetrics> m_metrics;
    std::shared_ptr<prometheus::Collectable> m_health;
    std::unique_ptr<prometheus::Exposer> m_exposer;
    int m_port = 0;
    std::unique_ptr<Recorder> m_recorder;
    QDate m_recordingDate;
    QTimer m_dayTimer;
    bool m_stopping = false;
};

} // namespace stormwatch
