package io.roboco.sandbox.mcp;

import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Which caller opened each MCP session. The SDK hands out the session id in the {@code initialize}
 * answer; it is recorded here as it is written, and from then on only the same caller may use it.
 * A session this map does not know is refused too (fail closed), so when the oldest of more than
 * {@value #MAX_SESSIONS} sessions is forgotten its client simply initializes again.
 */
final class SessionOwners {
    static final int MAX_SESSIONS = 10_000;

    private final Map<String, Caller> owners = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Caller> eldest) {
            return size() > MAX_SESSIONS;
        }
    };

    synchronized boolean mayUse(String session, Caller caller) {
        return caller.equals(owners.get(session));
    }

    synchronized void forget(String session) {
        owners.remove(session);
    }

    synchronized int size() {
        return owners.size();
    }

    private synchronized void own(String session, Caller caller) {
        owners.put(session, caller);
    }

    /** The response, recording the session id the SDK sets on it as {@code caller}'s. */
    HttpServletResponse watch(HttpServletResponse response, Caller caller) {
        return new HttpServletResponseWrapper(response) {
            @Override
            public void setHeader(String name, String value) {
                record(name, value);
                super.setHeader(name, value);
            }

            @Override
            public void addHeader(String name, String value) {
                record(name, value);
                super.addHeader(name, value);
            }

            private void record(String name, String value) {
                if (McpAuthFilter.SESSION_HEADER.equalsIgnoreCase(name) && value != null) {
                    own(value, caller);
                }
            }
        };
    }
}
