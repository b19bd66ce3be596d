// What each MxCommand does to a session's server handles, items and advises once the STA
// runs it. Bulk commands succeed item by item: an unknown handle or a tag that does not
// resolve fails in its own ItemResult while the rest go through.
#include "gateway_model.h"

namespace stormwatch::gateway {

using namespace mxgateway::v1;

namespace {

void fail(MxCommandReply& reply, std::string message)
{
    reply.set_success(false);
    reply.set_error_message(std::move(message));
}

} // namespace

// The mock's tag namespace: every address resolves except those naming a missing tag and
// those it was told are unknown (setUnknownTags: a site's addresses not configured here).
bool GatewayModel::resolves(const std::string& tag, std::string& error) const
{
    if (tag.empty()) {
        error = "empty tag address";
        return false;
    }
    if (m_unknownTags.contains(tag)) {
        error = "item not found: " + tag;
        return false;
    }
    if (tag.find("missing") != std::string::npos) {
        error = "tag address '" + tag + "' does not resolve";
        return false;
    }
    return true;
}

std::int32_t GatewayModel::addItem(Session& s, std::int32_t serverHandle, const std::string& tag,
                                   std::string& error)
{
    if (!resolves(tag, error))
        return 0;
    // An item is added once per server handle; adding it again returns its handle, so a
    // re-subscribe storm costs STA time but does not multiply the data stream.
    if (auto it = s.itemByKey.find(ItemKeyView{serverHandle, tag}); it != s.itemByKey.end())
        return it->second;
    std::optional<std::int32_t> taken;
    if (m_config.reuseHandles && !s.freedItemHandles.empty()) {
        taken = *s.freedItemHandles.begin(); // the lowest freed one
        s.freedItemHandles.erase(s.freedItemHandles.begin());
    } else {
        taken = takeHandle(s.nextItemHandle);
    }
    if (!taken) {
        error = "item handle space of this session exhausted";
        return 0;
    }
    const std::int32_t handle = *taken;
    Item item;
    item.serverHandle = serverHandle;
    item.tag = tag;
    const double value = static_cast<double>(nextValueBits() % 1000) / 10.0;
    s.items.emplace(handle, std::move(item), value);
    s.itemByKey.emplace(ItemKey{serverHandle, tag}, handle);
    return handle;
}

Item* GatewayModel::findItem(Session& s, std::int32_t serverHandle, std::int32_t itemHandle,
                             std::string& error)
{
    auto it = s.items.find(itemHandle);
    if (it == s.items.end() || it->second.serverHandle != serverHandle) {
        error = "unknown item handle " + std::to_string(itemHandle);
        return nullptr;
    }
    return &it->second;
}

void GatewayModel::adviseItem(Session& s, std::int32_t handle, Item& item, bool supervisory)
{
    (supervisory ? item.advise.supervisory : item.advise.plain) = true;
    s.items.adviseChanged(handle);
    // Its first value goes out in the next batch, promptly, whatever the data rate.
    if (!item.initialPending) {
        item.initialPending = true;
        s.initialPendingHandles.push_back(handle);
    }
    // Nobody listening: the value goes out when a stream attaches (see streamEvents).
    if (!s.initialFlushPosted && !s.streams.empty()) {
        s.initialFlushPosted = true;
        post([this, id = s.id] { flushInitialValues(id); });
    }
}

void GatewayModel::execute(Session& s, const MxCommand& command, MxCommandReply& reply)
{
    std::string error;
    const auto kind = commandKind(command);
    if (kind == CommandKind::Register) {
        const auto handle = takeHandle(s.nextServerHandle);
        if (!handle)
            return fail(reply, "server handle space of this session exhausted");
        s.serverHandles.insert(*handle);
        reply.mutable_register_()->set_server_handle(*handle);
        return;
    }

    // Every other command names the server handle it works under.
    std::int32_t serverHandle = 0;
    switch (kind) {
    case CommandKind::AddItem:
        serverHandle = command.add_item().server_handle();
        break;
    case CommandKind::AddItemBulk:
        serverHandle = command.add_item_bulk().server_handle();
        break;
    case CommandKind::Advise:
        serverHandle = command.advise().server_handle();
        break;
    case CommandKind::AdviseSupervisory:
        serverHandle = command.advise_supervisory().server_handle();
        break;
    case CommandKind::AdviseItemBulk:
        serverHandle = command.advise_item_bulk().server_handle();
        break;
    case CommandKind::SubscribeBulk:
        serverHandle = command.subscribe_bulk().server_handle();
        break;
    case CommandKind::RemoveItem:
        serverHandle = command.remove_item().server_handle();
        break;
    case CommandKind::UnAdvise:
        serverHandle = command.un_advise().server_handle();
        break;
    case CommandKind::Write:
        serverHandle = command.write().server_handle();
        break;
    case CommandKind::SubscribeAlarms:
        serverHandle = command.subscribe_alarms().server_handle();
        break;
    default:
        break;
    }
    if (!s.serverHandles.contains(serverHandle))
        return fail(reply, "unknown server handle " + std::to_string(serverHandle));

    switch (kind) {
    case CommandKind::AddItem: {
        const auto handle = addItem(s, serverHandle, command.add_item().tag_address(), error);
        if (!handle)
            return fail(reply, error);
        reply.mutable_add_item()->set_item_handle(handle);
        return;
    }
    case CommandKind::AddItemBulk:
    case CommandKind::SubscribeBulk: {
        const bool subscribe = kind == CommandKind::SubscribeBulk;
        const auto& tags = subscribe ? command.subscribe_bulk().tag_addresses()
                                     : command.add_item_bulk().tag_addresses();
        // An old gateway does not know the supervisory field and advises plainly: that is
        // why a client must never send it without the capability.
        const bool supervisory =
            subscribe && command.subscribe_bulk().supervisory() && s.supervisoryBulk;
        auto* results = subscribe ? reply.mutable_subscribe_bulk() : reply.mutable_add_item_bulk();
        results->mutable_results()->Reserve(tags.size());
        for (const auto& tag : tags) {
            auto* r = results->add_results();
            r->set_tag_address(tag);
            const auto handle = addItem(s, serverHandle, tag, error);
            r->set_ok(handle != 0);
            if (!handle) {
                r->set_error(error);
                continue;
            }
            r->set_item_handle(handle);
            if (subscribe)
                adviseItem(s, handle, s.items.at(handle), supervisory);
        }
        return;
    }
    case CommandKind::Advise:
    case CommandKind::AdviseSupervisory: {
        const bool supervisory = kind == CommandKind::AdviseSupervisory;
        const auto handle = supervisory ? command.advise_supervisory().item_handle()
                                        : command.advise().item_handle();
        Item* item = findItem(s, serverHandle, handle, error);
        if (!item)
            return fail(reply, error);
        adviseItem(s, handle, *item, supervisory);
        if (supervisory)
            reply.mutable_advise_supervisory();
        else
            reply.mutable_advise();
        return;
    }
    case CommandKind::AdviseItemBulk: {
        auto* results = reply.mutable_advise_item_bulk();
        for (const auto handle : command.advise_item_bulk().item_handles()) {
            auto* r = results->add_results();
            r->set_item_handle(handle);
            Item* item = findItem(s, serverHandle, handle, error);
            r->set_ok(item != nullptr);
            if (!item) {
                r->set_error(error);
                continue;
            }
            r->set_tag_address(item->tag);
            adviseItem(s, handle, *item, false);
        }
        return;
    }
    case CommandKind::RemoveItem: {
        const auto handle = command.remove_item().item_handle();
        Item* item = findItem(s, serverHandle, handle, error);
        if (!item)
            return fail(reply, error);
        if (auto key = s.itemByKey.find(ItemKeyView{serverHandle, item->tag});
            key != s.itemByKey.end())
            s.itemByKey.erase(key);
        s.items.erase(handle);
        if (m_config.reuseHandles)
            s.freedItemHandles.insert(handle);
        reply.mutable_remove_item();
        return;
    }
    case CommandKind::UnAdvise: {
        const auto handle = command.un_advise().item_handle();
        Item* item = findItem(s, serverHandle, handle, error);
        if (!item)
            return fail(reply, error);
        item->advise = {};
        s.items.adviseChanged(handle);
        item->initialPending = false;
        reply.mutable_un_advise();
        return;
    }
    case CommandKind::Write: {
        const auto& write = command.write();
        Item* item = findItem(s, serverHandle, write.item_handle(), error);
        if (!item)
            return fail(reply, error);
        // MXAccess accepts a write without a user only on a supervisory advise: a plain
        // advise on a supervisory connection silently breaks writes.
        if (write.user_id() == 0 && !item->advise.supervisory)
            return fail(reply, "write with user_id 0 needs a supervisory advise; item " +
                                   std::to_string(write.item_handle()) + " is " +
                                   (item->advise.plain ? "advised plainly only" : "not advised"));
        ItemTable::Hot* hot = s.items.hot(write.item_handle()); // the item's value lives there
        if (write.value().has_double_value())
            hot->value = write.value().double_value();
        else if (write.value().has_int_value())
            hot->value = static_cast<double>(write.value().int_value());
        reply.mutable_write();
        return;
    }
    case CommandKind::SubscribeAlarms:
        if (const auto id = takeHandle(s.nextAlarmSubscription)) {
            reply.mutable_subscribe_alarms()->set_subscription_id(*id);
            return;
        }
        return fail(reply, "alarm subscription space of this session exhausted");
    default:
        return fail(reply, "unsupported command");
    }
}

} // namespace stormwatch::gateway
