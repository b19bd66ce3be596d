// TSan builds only (CMakePresets "tsan", through tsan_qt_bridge.cmake): tells ThreadSanitizer
// about the happens-before edges that Qt's own cross-thread hand-offs provide.
//
// Debian's Qt is not built with -fsanitize=thread, and its QMutex, QSemaphore and the
// post-event queue synchronise with futexes and atomics inside libQt6Core that TSan cannot
// see. Without this file every value handed between our threads through Qt — a lambda run
// by QMetaObject::invokeMethod (queued or blocking), a queued signal's arguments, the state
// a QThread leaves behind for the QThread::wait() that joins it — is reported as a data
// race, and the few real races drown in thousands of false ones. Suppressing those reports
// by frame is no answer: QObject::event and QThread::start are on every worker thread's
// stack, so such a suppression would hide every race on those threads.
//
// So the calls our code makes into Qt are interposed here (the executable's definition
// wins over libQt6Core's for calls from our code) and annotated with the edges Qt really
// guarantees, and nothing more:
//  - QMetaObject::invokeMethodImpl: the caller's state before the call happens before the
//    functor runs; the functor's effects happen before a blocking caller resumes. The
//    functor is wrapped in a slot object that acquires/releases on its own address, so the
//    edge belongs to that one call.
//  - QObject::connectImpl + QMetaObject::activate (the connect() calls and the signals of
//    our code): what the emitter did before emitting happens before the slot runs, queued
//    or direct. The connection's slot object is wrapped to acquire on the sender's address;
//    every emission releases on it, before and after Qt copies a queued call's arguments.
//  - QThread::start / QThread::wait: what a thread did before QThread::finished happens
//    before wait() returns true (Qt's early return for an already finished thread is a
//    QMutex TSan cannot see), and before the slots of a queued finished() connection.
// Races in our code between these hand-offs are still reported; see tsan.supp for what is
// suppressed (third-party frames only) and why.

#include <QDeadlineTimer>
#include <QObject>
#include <QThread>
#include <cstdio>
#include <cstdlib>
#include <dlfcn.h>
#include <sanitizer/tsan_interface.h>

namespace {

template <class Fn> Fn realSymbol(const char* mangled)
{
    void* fn = dlsym(RTLD_NEXT, mangled);
    if (!fn) {
        std::fprintf(stderr, "tsan_qt_bridge: %s not found in Qt\n", mangled);
        std::abort();
    }
    return reinterpret_cast<Fn>(fn);
}

// Wraps a slot object. Its own address carries the edge from where it was made (the
// invokeMethod caller, the connect() call) to each call and back to a blocking caller;
// `sender` (connections only) carries the emitter's state to the slot.
class BridgeSlot final : public QtPrivate::QSlotObjectBase {
public:
    BridgeSlot(QtPrivate::QSlotObjectBase* inner, const QObject* sender)
        : QSlotObjectBase(&impl), m_inner(inner), m_sender(sender)
    {
        __tsan_release(this);
    }

private:
    static void impl(int which, QSlotObjectBase* self, QObject* receiver, void** args, bool* ret)
    {
        __tsan_acquire(self); // before any member is read
        auto* bridge = static_cast<BridgeSlot*>(self);
        switch (which) {
        case Destroy:
            bridge->m_inner->destroyIfLastRef();
            delete bridge;
            return;
        case Call:
            if (bridge->m_sender)
                __tsan_acquire(const_cast<QObject*>(bridge->m_sender));
            bridge->m_inner->call(receiver, args);
            break;
        case Compare: // disconnect() and Qt::UniqueConnection compare the functor
            *ret = bridge->m_inner->compare(args);
            break;
        }
        __tsan_release(self);
    }

    QtPrivate::QSlotObjectBase* m_inner;
    const QObject* m_sender;
};

} // namespace

bool QMetaObject::invokeMethodImpl(QObject* object, QtPrivate::QSlotObjectBase* slot,
                                   Qt::ConnectionType type, void* ret)
{
    using Fn = bool (*)(QObject*, QtPrivate::QSlotObjectBase*, Qt::ConnectionType, void*);
    static const Fn real = realSymbol<Fn>("_ZN11QMetaObject16invokeMethodImplEP7QObjectPN9QtPrivate"
                                          "15QSlotObjectBaseEN2Qt14ConnectionTypeEPv");
    if (!slot)
        return real(object, slot, type, ret);
    auto* bridge = new BridgeSlot(slot, nullptr); // owns `slot`'s reference, as Qt would
    bridge->ref(); // ours: the acquire below must not outlive the bridge
    __tsan_release(bridge);
    const bool ok = real(object, bridge, type, ret);
    __tsan_acquire(bridge); // a blocking call has run the functor by now
    bridge->destroyIfLastRef();
    return ok;
}

QMetaObject::Connection QObject::connectImpl(const QObject* sender, void** signal,
                                             const QObject* receiver, void** slotPtr,
                                             QtPrivate::QSlotObjectBase* slot,
                                             Qt::ConnectionType type, const int* types,
                                             const QMetaObject* senderMetaObject)
{
    using Fn = QMetaObject::Connection (*)(const QObject*, void**, const QObject*, void**,
                                           QtPrivate::QSlotObjectBase*, Qt::ConnectionType,
                                           const int*, const QMetaObject*);
    static const Fn real =
        realSymbol<Fn>("_ZN7QObject11connectImplEPKS_PPvS1_S3_"
                       "PN9QtPrivate15QSlotObjectBaseEN2Qt14ConnectionTypeEPKiPK11QMetaObject");
    if (slot && sender)
        slot = new BridgeSlot(slot, sender);
    return real(sender, signal, receiver, slotPtr, slot, type, types, senderMetaObject);
}

void QMetaObject::activate(QObject* sender, const QMetaObject* meta, int localSignalIndex,
                           void** argv)
{
    using Fn = void (*)(QObject*, const QMetaObject*, int, void**);
    static const Fn real = realSymbol<Fn>("_ZN11QMetaObject8activateEP7QObjectPKS_iPPv");
    __tsan_release(sender);
    real(sender, meta, localSignalIndex, argv);
    __tsan_release(sender); // a queued call's argument copies are made inside
}

void QThread::start(Priority priority)
{
    using Fn = void (*)(QThread*, Priority);
    static const Fn real = realSymbol<Fn>("_ZN7QThread5startENS_8PriorityE");
    // Emitted on the finishing thread, before Qt marks it finished and wakes wait(); the
    // sender's address is also what connections to finished() acquire on.
    QObject::connect(
        this, &QThread::finished, this, [this] { __tsan_release(this); }, Qt::DirectConnection);
    real(this, priority);
}

bool QThread::wait(QDeadlineTimer deadline)
{
    using Fn = bool (*)(QThread*, QDeadlineTimer);
    static const Fn real = realSymbol<Fn>("_ZN7QThread4waitE14QDeadlineTimer");
    const bool finished = real(this, deadline);
    if (finished)
        __tsan_acquire(this);
    return finished;
}
