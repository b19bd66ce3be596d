#include "unix_signals.h"

#include <csignal>
#include <sys/socket.h>
#include <unistd.h>

namespace stormwatch {

namespace {

int g_fds[2] = {-1, -1};

void onSignal(int signal)
{
    const unsigned char byte = static_cast<unsigned char>(signal);
    [[maybe_unused]] auto n = ::write(g_fds[1], &byte, 1);
}

} // namespace

UnixSignals::UnixSignals(std::initializer_list<int> handled, QObject* parent)
    : QObject(parent), m_handled(handled)
{
    if (::socketpair(AF_UNIX, SOCK_STREAM, 0, g_fds) != 0)
        return;
    m_notifier = std::make_unique<QSocketNotifier>(g_fds[0], QSocketNotifier::Read);
    connect(m_notifier.get(), &QSocketNotifier::activated, this, [this] {
        unsigned char byte = 0;
        if (::read(g_fds[0], &byte, 1) == 1)
            emit received(int(byte));
    });
    struct sigaction action = {};
    action.sa_handler = onSignal;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    for (const int s : m_handled)
        sigaction(s, &action, nullptr);
}

UnixSignals::~UnixSignals()
{
    for (const int s : m_handled)
        std::signal(s, SIG_DFL);
    m_notifier.reset();
    for (int& fd : g_fds) {
        if (fd >= 0)
            ::close(fd);
        fd = -1;
    }
}

} // namespace stormwatch
