package io.roboco.sandbox.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SessionsTest {
    private Instant now = Instant.parse("2026-01-01T00:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };
    private final Sessions sessions = new Sessions(clock);

    @Test
    void sessionEndsAfterIdleTimeButRequestsKeepItAlive() {
        String id = sessions.create().getKey();
        now = now.plus(Sessions.IDLE.minusMinutes(1));
        assertThat(sessions.find(id)).isPresent();
        now = now.plus(Sessions.IDLE.minusMinutes(1));
        assertThat(sessions.find(id)).isPresent();
        now = now.plus(Sessions.IDLE.plusSeconds(1));
        assertThat(sessions.find(id)).isEmpty();
    }

    @Test
    void sessionEndsAtItsMaximumAgeEvenWhenBusy() {
        String id = sessions.create().getKey();
        for (Duration step = Duration.ZERO; step.compareTo(Sessions.MAX_AGE) < 0; step = step.plusHours(1)) {
            now = now.plus(Duration.ofHours(1));
            sessions.find(id);
        }
        now = now.plusSeconds(1);
        assertThat(sessions.find(id)).isEmpty();
    }

    @Test
    void endedAndUnknownIdsFindNothing() {
        String id = sessions.create().getKey();
        sessions.end(id);
        assertThat(sessions.find(id)).isEmpty();
        assertThat(sessions.find(null)).isEmpty();
        assertThat(sessions.find("x".repeat(500))).isEmpty();
    }

    @Test
    void idsAndCsrfTokensAreRandomAndCsrfMustMatchExactly() {
        Map.Entry<String, Sessions.Session> a = sessions.create();
        Map.Entry<String, Sessions.Session> b = sessions.create();
        assertThat(a.getKey()).isNotEqualTo(b.getKey()).hasSize(43);
        assertThat(a.getValue().csrf()).isNotEqualTo(b.getValue().csrf()).isNotEqualTo(a.getKey());
        assertThat(a.getValue().csrfMatches(a.getValue().csrf())).isTrue();
        assertThat(a.getValue().csrfMatches(b.getValue().csrf())).isFalse();
        assertThat(a.getValue().csrfMatches(null)).isFalse();
        assertThat(a.getValue().csrfMatches("")).isFalse();
    }

    @Test
    void theOldestSessionGivesWayWhenTheCapIsReached() {
        String first = sessions.create().getKey();
        for (int i = 1; i < Sessions.MAX_SESSIONS; i++) {
            now = now.plusMillis(1);
            sessions.create();
        }
        now = now.plusMillis(1);
        String last = sessions.create().getKey();
        assertThat(sessions.size()).isEqualTo(Sessions.MAX_SESSIONS);
        assertThat(sessions.find(first)).isEmpty();
        assertThat(sessions.find(last)).isPresent();
    }

    @Test
    void flashIsShownOnce() {
        Sessions.Session s = sessions.create().getValue();
        s.flash("Saved.", false);
        assertThat(s.takeFlash()).isEqualTo(new Sessions.Flash("Saved.", false));
        assertThat(s.takeFlash()).isNull();
    }
}
