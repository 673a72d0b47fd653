package io.roboco.sandbox.web;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Server-side admin sessions, in memory (a restart signs everyone out). The cookie carries a
 * random 256-bit id; the map is keyed by its SHA-256 so the raw id is never held. A session ends
 * after {@link #IDLE} without a request, after {@link #MAX_AGE} in all, or on sign-out.
 */
final class Sessions {
    static final Duration IDLE = Duration.ofHours(8);
    static final Duration MAX_AGE = Duration.ofHours(24);
    static final int MAX_SESSIONS = 256;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, Session> byDigest = new ConcurrentHashMap<>();
    private final Clock clock;

    Sessions(Clock clock) {
        this.clock = clock;
    }

    /** One signed-in admin: the CSRF token its forms carry, and a one-shot message for the next page. */
    static final class Session {
        private final String csrf = randomToken();
        private final Instant created;
        private volatile Instant lastSeen;
        private String flash;
        private boolean flashIsError;

        private Session(Instant now) {
            this.created = now;
            this.lastSeen = now;
        }

        String csrf() {
            return csrf;
        }

        /** Constant-time comparison of a submitted token with this session's. */
        boolean csrfMatches(String given) {
            return given != null && MessageDigest.isEqual(digest(given), digest(csrf));
        }

        synchronized void flash(String message, boolean error) {
            this.flash = message;
            this.flashIsError = error;
        }

        /** The pending message, at most once; null when none. */
        synchronized Flash takeFlash() {
            if (flash == null) {
                return null;
            }
            Flash f = new Flash(flash, flashIsError);
            flash = null;
            return f;
        }
    }

    record Flash(String message, boolean error) {}

    /** A new session and the id for its cookie. */
    Map.Entry<String, Session> create() {
        Instant now = clock.instant();
        expire(now);
        if (byDigest.size() >= MAX_SESSIONS) {
            byDigest.entrySet().stream()
                    .min(Comparator.comparing(e -> e.getValue().lastSeen))
                    .ifPresent(oldest -> byDigest.remove(oldest.getKey()));
        }
        String id = randomToken();
        Session session = new Session(now);
        byDigest.put(key(id), session);
        return Map.entry(id, session);
    }

    /** The live session for a cookie value, touching it; empty when unknown or expired. */
    Optional<Session> find(String id) {
        if (id == null || id.isEmpty() || id.length() > 100) {
            return Optional.empty();
        }
        String key = key(id);
        Session session = byDigest.get(key);
        if (session == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (expired(session, now)) {
            byDigest.remove(key);
            return Optional.empty();
        }
        session.lastSeen = now;
        return Optional.of(session);
    }

    void end(String id) {
        if (id != null) {
            byDigest.remove(key(id));
        }
    }

    int size() {
        return byDigest.size();
    }

    private void expire(Instant now) {
        byDigest.values().removeIf(s -> expired(s, now));
    }

    private static boolean expired(Session s, Instant now) {
        return now.isAfter(s.lastSeen.plus(IDLE)) || now.isAfter(s.created.plus(MAX_AGE));
    }

    static String randomToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    static byte[] digest(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from the JDK", e);
        }
    }

    private static String key(String id) {
        return HexFormat.of().formatHex(digest(id));
    }
}
