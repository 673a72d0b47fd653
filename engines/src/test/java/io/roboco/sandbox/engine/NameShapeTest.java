package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class NameShapeTest {
    private static final NameShape SLUG = NameShape.of("agent slug", "[a-z0-9][a-z0-9_.-]{0,62}", 63);

    @Test
    void matchesInFullAndUpToItsLongestLength() {
        assertThat(SLUG.matches("dev-1")).isTrue();
        assertThat(SLUG.matches("a".repeat(63))).isTrue();
        assertThat(SLUG.matches("a".repeat(64))).isFalse();
        assertThat(SLUG.matches("dev 1")).isFalse();
        assertThat(SLUG.matches("x\ndev")).isFalse();
        assertThat(SLUG.matches(null)).isFalse();
        assertThat(SLUG.jsonPattern()).isEqualTo("^[a-z0-9][a-z0-9_.-]{0,62}$");
    }

    @Test
    void aPrefixLengthensTheShapeAndAnExceptionRefusesOneName() {
        NameShape job = SLUG.prefixed("job owner", "job:", "job:<name>");
        assertThat(job.matches("job:ci-42")).isTrue();
        assertThat(job.matches("ci-42")).isFalse();
        assertThat(job.maxLength()).isEqualTo(67);
        assertThat(job.matches("job:" + "a".repeat(63))).isTrue();
        NameShape either = SLUG.optionallyPrefixed("owner", "job:", "a slug or job:<name>");
        assertThat(either.matches("ci-42")).isTrue();
        assertThat(either.matches("job:ci-42")).isTrue();
        assertThat(either.matches("job:")).isFalse();
        NameShape named = SLUG.except("default");
        assertThat(named.matches("default")).isFalse();
        assertThat(named.matches("defaults")).isTrue();
        assertThat(named.matches("my-default")).isTrue();
    }

    @Test
    void refusalsNameTheShapeAndEchoInputSafely() {
        assertThat(SLUG.malformed("Dev 1"))
                .isEqualTo("agent slug 'Dev 1' is malformed; expected [a-z0-9][a-z0-9_.-]{0,62}");
        assertThat(SLUG.malformed("a\u0000")).contains("'a\\u0000'");
        assertThat(CheckpointName.SHAPE.mustBe("template", 7))
                .isEqualTo("'template' must be a checkpoint name (1-30 of a-z 0-9 _ -,"
                        + " starting with a letter or digit)");
    }

    @Test
    void aCheckpointNameIsRefusedByTheEngineItself() {
        assertThat(CheckpointName.of("before-migration").value()).isEqualTo("before-migration");
        assertThatThrownBy(() -> CheckpointName.of("x".repeat(31)))
                .isInstanceOf(UnknownNameException.class)
                .hasMessageContaining("checkpoint name")
                .hasMessageContaining("1-30 of a-z 0-9 _ -");
        assertThatThrownBy(() -> CheckpointName.of("Before")).isInstanceOf(UnknownNameException.class);
        assertThatThrownBy(() -> CheckpointName.of("a\"; DROP")).isInstanceOf(UnknownNameException.class);
    }
}
