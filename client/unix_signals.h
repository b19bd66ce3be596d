#pragma once
// POSIX signals (SIGTERM, SIGINT, SIGHUP, ...) as a Qt signal on the thread that made the
// object: the handler only writes the signal's number to a socket pair, which is
// async-signal-safe, and the event loop reads it. One object per process.

#include <QObject>
#include <QSocketNotifier>
#include <initializer_list>
#include <memory>
#include <vector>

namespace stormwatch {

class UnixSignals : public QObject {
    Q_OBJECT
public:
    explicit UnixSignals(std::initializer_list<int> handled, QObject* parent = nullptr);
    ~UnixSignals() override; // the default handlers again
    UnixSignals(const UnixSignals&) = delete;
    UnixSignals& operator=(const UnixSignals&) = delete;

    // False when the socket pair could not be made (nothing is handled then).
    bool ok() const { return m_notifier != nullptr; }

signals:
    void received(int signal);

private:
    std::unique_ptr<QSocketNotifier> m_notifier;
    std::vector<int> m_handled;
};

} // namespace stormwatch
