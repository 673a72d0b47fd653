package io.roboco.sandbox.server.config;

import io.roboco.sandbox.settings.ByteSize;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

/**
 * Limits at the server's edge (containment, issue 18 items 5, 7 and 8), validated at start.
 *
 * @param maxBody            {@code ROBOCO_SANDBOX_MAX_BODY} (1m): the largest request body on any route and {@code /mcp};
 *                           larger → 413 before it is buffered (chunked bodies are counted as they arrive)
 * @param maxFormBody        {@code ROBOCO_SANDBOX_MAX_FORM_BODY} (64k): the largest dashboard form body
 * @param tokenTtl           {@code ROBOCO_SANDBOX_MCP_TOKEN_TTL} (24h): how long a minted agent token works
 * @param maxConcurrentCalls {@code ROBOCO_SANDBOX_MCP_MAX_CONCURRENT_CALLS} (4): MCP tool calls one agent token may
 *                           have under way at once
 * @param callsPerMinute     {@code ROBOCO_SANDBOX_MCP_CALLS_PER_MINUTE} (120): MCP tool calls one agent token may begin
 *                           in any sliding minute
 * @param maxSessions        {@code ROBOCO_SANDBOX_MCP_MAX_SESSIONS} (8): open MCP sessions per agent token
 * @param sessionIdle        {@code ROBOCO_SANDBOX_MCP_SESSION_IDLE} (10m): an MCP session unused this long is closed
 */
public record EdgeSettings(
        long maxBody,
        long maxFormBody,
        Duration tokenTtl,
        int maxConcurrentCalls,
        int callsPerMinute,
        int maxSessions,
        Duration sessionIdle) {
    public static final String MAX_BODY = "ROBOCO_SANDBOX_MAX_BODY";
    public static final String MAX_FORM_BODY = "ROBOCO_SANDBOX_MAX_FORM_BODY";
    public static final String TOKEN_TTL = "ROBOCO_SANDBOX_MCP_TOKEN_TTL";
    public static final String MAX_CONCURRENT_CALLS = "ROBOCO_SANDBOX_MCP_MAX_CONCURRENT_CALLS";
    public static final String CALLS_PER_MINUTE = "ROBOCO_SANDBOX_MCP_CALLS_PER_MINUTE";
    public static final String MAX_SESSIONS = "ROBOCO_SANDBOX_MCP_MAX_SESSIONS";
    public static final String SESSION_IDLE = "ROBOCO_SANDBOX_MCP_SESSION_IDLE";
    /** The MCP-prefixed names, which {@link McpSettings} must know (it refuses unknown ones). */
    static final Set<String> MCP_NAMES =
            Set.of(TOKEN_TTL, MAX_CONCURRENT_CALLS, CALLS_PER_MINUTE, MAX_SESSIONS, SESSION_IDLE);

    private static final long MIN_BODY = 16 << 10;
    private static final long MAX_BODY_CEILING = 256L << 20;

    public EdgeSettings {
        requireSize(MAX_BODY, maxBody);
        requireSize(MAX_FORM_BODY, maxFormBody);
        requireRange(MAX_CONCURRENT_CALLS, maxConcurrentCalls, 1, 1000);
        requireRange(CALLS_PER_MINUTE, callsPerMinute, 1, 100_000);
        requireRange(MAX_SESSIONS, maxSessions, 1, 1000);
        if (tokenTtl.compareTo(Duration.ofMinutes(1)) < 0) {
            throw new ConfigException(
                    TOKEN_TTL + "=" + Durations.format(tokenTtl) + " is too short; use at least 1m (default 24h)");
        }
        if (sessionIdle.compareTo(Duration.ofSeconds(10)) < 0) {
            throw new ConfigException(SESSION_IDLE + "=" + Durations.format(sessionIdle)
                    + " is too short; use at least 10s (default 10m)");
        }
    }

    public static EdgeSettings defaults() {
        return new EdgeSettings(1L << 20, 64L << 10, Duration.ofHours(24), 4, 120, 8, Duration.ofMinutes(10));
    }

    static EdgeSettings fromEnv(Map<String, String> env) {
        EdgeSettings d = defaults();
        return new EdgeSettings(
                EnvValues.size(env, MAX_BODY, d.maxBody()),
                EnvValues.size(env, MAX_FORM_BODY, d.maxFormBody()),
                EnvValues.duration(env, TOKEN_TTL, d.tokenTtl()),
                EnvValues.number(env, MAX_CONCURRENT_CALLS, d.maxConcurrentCalls()),
                EnvValues.number(env, CALLS_PER_MINUTE, d.callsPerMinute()),
                EnvValues.number(env, MAX_SESSIONS, d.maxSessions()),
                EnvValues.duration(env, SESSION_IDLE, d.sessionIdle()));
    }

    public EdgeSettings withCallLimits(int concurrent, int perMinute) {
        return new EdgeSettings(maxBody, maxFormBody, tokenTtl, concurrent, perMinute, maxSessions, sessionIdle);
    }

    public EdgeSettings withSessions(int max, Duration idle) {
        return new EdgeSettings(maxBody, maxFormBody, tokenTtl, maxConcurrentCalls, callsPerMinute, max, idle);
    }

    public EdgeSettings withTokenTtl(Duration ttl) {
        return new EdgeSettings(
                maxBody, maxFormBody, ttl, maxConcurrentCalls, callsPerMinute, maxSessions, sessionIdle);
    }

    private static void requireSize(String key, long bytes) {
        if (bytes < MIN_BODY || bytes > MAX_BODY_CEILING) {
            throw new ConfigException(key + "=" + bytes + " bytes is out of range; use " + ByteSize.format(MIN_BODY)
                    + "-" + ByteSize.format(MAX_BODY_CEILING) + ", e.g. 1m");
        }
    }

    private static void requireRange(String key, int value, int min, int max) {
        if (value < min || value > max) {
            throw new ConfigException(key + "=" + value + " is out of range; use " + min + "-" + max);
        }
    }
}
