package io.roboco.sandbox.mcp;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The door of {@code /mcp}: every HTTP request carries a bearer token, resolved here to a {@link Caller}
 * (the admin token → the operator; a current agent token → that agent). A missing, wrong, replaced or
 * revoked token is answered 401 before the MCP SDK sees the request. A session belongs to the caller
 * that opened it ({@link SessionOwners}); another caller naming it gets 404, as for an unknown session. An agent
 * token already holding its most open sessions is answered 429 with {@code Retry-After} when it initializes another.
 */
final class McpAuthFilter implements Filter {
    private static final Logger log = LoggerFactory.getLogger(McpAuthFilter.class);
    static final String SESSION_HEADER = "Mcp-Session-Id";

    /** The largest JSON-RPC message accepted on /mcp; larger ones are answered 413. */
    static final int MAX_BODY = 1 << 20;

    private static final ObjectMapper JSON = new ObjectMapper();

    private final byte[] adminDigest;
    private final AgentTokens tokens;
    private final SessionOwners sessions;
    private final Gate gate;

    McpAuthFilter(String adminToken, AgentTokens tokens, SessionOwners sessions, Gate gate) {
        this.adminDigest = AgentTokens.sha256(adminToken);
        this.tokens = tokens;
        this.sessions = sessions;
        this.gate = gate;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        HttpServletRequest req = (HttpServletRequest) request;
        HttpServletResponse resp = (HttpServletResponse) response;
        String token = bearer(req.getHeader("Authorization"));
        if (token == null) {
            unauthorized(
                    resp,
                    "missing bearer token; send 'Authorization: Bearer <token>' with the agent token from"
                            + " POST /api/agents/{slug}/token (or the admin token for the operator view)");
            return;
        }
        Caller caller;
        try {
            caller = resolve(token);
        } catch (RuntimeException e) {
            log.warn("MCP token lookup failed ({}); answering 503", e.getClass().getSimpleName());
            write(resp, 503, "unavailable", "the settings store is not answering; try again shortly");
            return;
        }
        if (caller == null) {
            unauthorized(
                    resp,
                    "token not recognised: it is wrong, was replaced by a newer one, or was revoked;"
                            + " the orchestrator mints a new one with POST /api/agents/{slug}/token");
            return;
        }
        String session = req.getHeader(SESSION_HEADER);
        if (session != null && !sessions.mayUse(session, caller)) {
            write(resp, 404, "session_not_found", "no such MCP session for this token; initialize a new one");
            return;
        }
        req.setAttribute(Caller.CONTEXT_KEY, caller);
        if ("POST".equals(req.getMethod())) {
            BufferedRequest buffered = BufferedRequest.of(req, MAX_BODY);
            if (buffered == null) {
                write(resp, 413, "too_large", "an MCP message may be at most " + MAX_BODY + " bytes");
                return;
            }
            auditUnknownTool(caller, buffered.body());
            req = buffered;
        }
        boolean opening = session == null && "POST".equals(req.getMethod());
        if (opening) {
            Optional<Duration> wait = sessions.tryOpen(caller);
            if (wait.isPresent()) {
                long seconds = Math.max(1, (wait.get().toMillis() + 999) / 1000);
                resp.setHeader("Retry-After", Long.toString(seconds));
                write(
                        resp,
                        429,
                        "too_many_sessions",
                        "this agent token holds " + sessions.perAgent() + " open MCP sessions, the"
                                + " most it may (ROBOCO_SANDBOX_MCP_MAX_SESSIONS); reuse one, close one (DELETE /mcp with its Mcp-Session-Id),"
                                + " or retry in " + seconds + " s, when the least recently used one has been idle "
                                + sessions.idle().toSeconds() + " s and expires");
                return;
            }
        }
        try {
            chain.doFilter(req, sessions.watch(resp, caller));
        } finally {
            if (opening) {
                sessions.doneOpening(caller);
            }
        }
        if (session != null && "DELETE".equals(req.getMethod()) && resp.getStatus() < 300) {
            sessions.forget(session);
        }
    }

    /**
     * A tools/call of a name the server has no tool for is answered by the SDK itself (JSON-RPC -32602)
     * and never reaches a handler; the gate records it here, so every call is in the audit trail.
     */
    private void auditUnknownTool(Caller caller, byte[] body) {
        try {
            JsonNode message = JSON.readTree(body);
            if (message != null
                    && message.isObject()
                    && "tools/call".equals(message.path("method").asText())) {
                String name = message.path("params").path("name").asText("");
                if (!gate.has(name)) {
                    gate.unknownTool(caller, name);
                }
            }
        } catch (IOException malformed) {
            // Not JSON: the SDK answers the parse error; there is no tool call to record.
        }
    }

    private Caller resolve(String token) {
        if (MessageDigest.isEqual(AgentTokens.sha256(token), adminDigest)) {
            return new Caller.Operator();
        }
        return tokens.callerFor(token).<Caller>map(agent -> agent).orElse(null);
    }

    private static String bearer(String header) {
        if (header == null || header.length() < 8 || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String token = header.substring(7).trim();
        return token.isEmpty() ? null : token;
    }

    private static void unauthorized(HttpServletResponse resp, String message) throws IOException {
        resp.setHeader("WWW-Authenticate", "Bearer realm=\"roboco-sandbox\"");
        write(resp, 401, "unauthorized", message);
    }

    private static void write(HttpServletResponse resp, int status, String code, String message) throws IOException {
        resp.setStatus(status);
        resp.setContentType("application/json");
        byte[] body = ("{\"error\":\"" + code + "\",\"message\":\"" + message.replace("\"", "'") + "\"}")
                .getBytes(StandardCharsets.UTF_8);
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}
