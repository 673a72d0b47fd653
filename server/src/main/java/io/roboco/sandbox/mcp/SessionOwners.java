package io.roboco.sandbox.mcp;

import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Which caller opened each MCP session, and how many each agent token holds. The SDK hands out the session id in the
 * {@code initialize} answer; it is recorded here as it is written, and from then on only the same caller may use it.
 * A session this map does not know is refused too (fail closed), so when the oldest of more than
 * {@value #MAX_SESSIONS} sessions is forgotten its client simply initializes again.
 *
 * <p>Fair share: an agent token holds at most {@code perAgent} open sessions ({@code ROBOCO_SANDBOX_MCP_MAX_SESSIONS});
 * a session unused for {@code idle} ({@code ROBOCO_SANDBOX_MCP_SESSION_IDLE}) is forgotten here (its client gets 404
 * and initializes again) and closed by the SDK's sweeper, which runs at the same interval. Opening one more over the
 * cap is refused with the time until the agent's oldest idle session expires. The operator is not capped.
 */
final class SessionOwners {
    static final int MAX_SESSIONS = 10_000;

    private final int perAgent;
    private final Duration idle;
    private final Clock clock;
    private final Map<String, Owned> owners = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Owned> eldest) {
            return size() > MAX_SESSIONS;
        }
    };
    /** Sessions being opened (an initialize under way), per caller: counted against the cap until recorded or abandoned. */
    private final Map<Caller, Integer> opening = new HashMap<>();

    private static final class Owned {
        final Caller caller;
        Instant lastUsed;

        Owned(Caller caller, Instant lastUsed) {
            this.caller = caller;
            this.lastUsed = lastUsed;
        }
    }

    SessionOwners(int perAgent, Duration idle, Clock clock) {
        this.perAgent = perAgent;
        this.idle = idle;
        this.clock = clock;
    }

    /** Whether {@code caller} may use {@code session}: it opened it and it has not been idle too long. Marks it used. */
    synchronized boolean mayUse(String session, Caller caller) {
        Owned owned = owners.get(session);
        if (owned == null || !owned.caller.equals(caller)) {
            return false;
        }
        Instant now = clock.instant();
        if (expired(owned, now)) {
            owners.remove(session);
            return false;
        }
        owned.lastUsed = now;
        return true;
    }

    /**
     * Reserves a session slot for an {@code initialize} by {@code caller}: empty when it may go ahead (it must then
     * call {@link #doneOpening}), else how long until one of its sessions expires.
     */
    synchronized Optional<Duration> tryOpen(Caller caller) {
        if (!(caller instanceof Caller.Agent)) {
            opening.merge(caller, 1, Integer::sum);
            return Optional.empty();
        }
        Instant now = clock.instant();
        int open = opening.getOrDefault(caller, 0);
        Instant oldest = null;
        for (Iterator<Owned> it = owners.values().iterator(); it.hasNext(); ) {
            Owned owned = it.next();
            if (expired(owned, now)) {
                it.remove();
            } else if (owned.caller.equals(caller)) {
                open++;
                oldest = oldest == null || owned.lastUsed.isBefore(oldest) ? owned.lastUsed : oldest;
            }
        }
        if (open >= perAgent) {
            Duration wait = oldest == null ? Duration.ofSeconds(1) : Duration.between(now, oldest.plus(idle));
            return Optional.of(wait.compareTo(Duration.ofSeconds(1)) < 0 ? Duration.ofSeconds(1) : wait);
        }
        opening.merge(caller, 1, Integer::sum);
        return Optional.empty();
    }

    /** The {@code initialize} reserved by {@link #tryOpen} has answered (its session, if any, is recorded by then). */
    synchronized void doneOpening(Caller caller) {
        opening.computeIfPresent(caller, (c, n) -> n <= 1 ? null : n - 1);
    }

    synchronized void forget(String session) {
        owners.remove(session);
    }

    synchronized int size() {
        return owners.size();
    }

    /** Open (not idle-expired) sessions of {@code caller}. */
    synchronized int openBy(Caller caller) {
        Instant now = clock.instant();
        return (int) owners.values().stream()
                .filter(o -> o.caller.equals(caller) && !expired(o, now))
                .count();
    }

    int perAgent() {
        return perAgent;
    }

    Duration idle() {
        return idle;
    }

    private boolean expired(Owned owned, Instant now) {
        return !now.isBefore(owned.lastUsed.plus(idle));
    }

    private synchronized void own(String session, Caller caller) {
        owners.put(session, new Owned(caller, clock.instant()));
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
