package io.roboco.sandbox.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AuditTrailTest {

    /** A store that refuses writes while {@code down} is set. */
    static final class FlakyLog implements AuditLog {
        final List<AuditRecord> written = new ArrayList<>();
        boolean down;

        @Override
        public void append(AuditRecord record) {
            if (down) {
                throw new IllegalStateException("store closed");
            }
            written.add(record);
        }

        @Override
        public List<AuditRecord> recent(String agent, String decision, int limit) {
            return List.copyOf(written);
        }
    }

    private static AuditRecord record(String agent) {
        return new AuditRecord(
                Instant.EPOCH,
                agent,
                "p",
                "release_sandbox",
                "released",
                "1 container(s) removed",
                List.of("redis"),
                1);
    }

    @Test
    void aRecordTheStoreRefusesIsWrittenLaterInOrder() {
        FlakyLog log = new FlakyLog();
        AuditTrail trail = new AuditTrail(log);
        log.down = true;
        trail.append(record("a"));
        trail.append(record("b"));
        assertThat(log.written).isEmpty();
        assertThat(trail.kept()).isEqualTo(2);

        log.down = false;
        trail.append(record("c"));
        assertThat(log.written).extracting(AuditRecord::agent).containsExactly("a", "b", "c");
        assertThat(trail.kept()).isZero();
    }

    @Test
    void flushWritesWhatWasKept() {
        FlakyLog log = new FlakyLog();
        AuditTrail trail = new AuditTrail(log);
        log.down = true;
        trail.append(record("a"));
        log.down = false;
        trail.flush();
        assertThat(log.written).extracting(AuditRecord::agent).containsExactly("a");
    }

    @Test
    void keepsAtMostTheBoundDroppingTheOldest() {
        FlakyLog log = new FlakyLog();
        AuditTrail trail = new AuditTrail(log);
        log.down = true;
        for (int i = 0; i < AuditTrail.MAX_KEPT + 5; i++) {
            trail.append(record("a" + i));
        }
        assertThat(trail.kept()).isEqualTo(AuditTrail.MAX_KEPT);
        log.down = false;
        trail.flush();
        assertThat(log.written.get(0).agent()).isEqualTo("a5");
    }
}
