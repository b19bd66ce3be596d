#pragma once
// The published gateway's API keys, as the mock models them (mxgw-mock --api-keys FILE): a
// call carries "authorization: Bearer mxgw_<key-id>_<secret>"; a missing or unknown key is
// UNAUTHENTICATED, a known key without the method's scope PERMISSION_DENIED, naming the
// scope (never the secret).

#include "gateway_types.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace stormwatch::gateway {

class ApiKeys {
public:
    // FILE: one key a line, "mxgw_<key-id>_<secret> scope[,scope...]"; '#' comments and blank
    // lines. nullopt with `error` naming the file and line that is wrong.
    static std::optional<ApiKeys> load(const std::string& path, std::string& error);
    // The same from the file's text (`source` names it in errors).
    static std::optional<ApiKeys> parse(const std::string& text, const std::string& source,
                                        std::string& error);

    // The scope a method of the gateway's service needs ("OpenSession" -> session:open); empty
    // for a method that needs none.
    static std::string_view scopeFor(std::string_view method);
    // OK when `authorization` (the header's value) names a key that has `scope`.
    CallStatus authorize(std::string_view authorization, std::string_view scope) const;
    std::size_t size() const { return m_scopes.size(); }

private:
    std::map<std::string, std::set<std::string, std::less<>>, std::less<>>
        m_scopes; // key -> scopes
};

} // namespace stormwatch::gateway
