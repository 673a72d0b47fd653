package io.roboco.sandbox.mongocompat.scram;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** RFC 4013 section 3's examples, and the identity on what the sandbox generates. */
class SaslPrepTest {
    @Test
    void printableAsciiIsUnchanged() {
        assertThat(SaslPrep.prepare("Abc-123_xyz.~!")).isEqualTo("Abc-123_xyz.~!");
    }

    @Test
    void rfc4013Examples() {
        assertThat(SaslPrep.prepare("I\u00ADX")).isEqualTo("IX");        // soft hyphen mapped to nothing
        assertThat(SaslPrep.prepare("\u00AA")).isEqualTo("a");           // NFKC
        assertThat(SaslPrep.prepare("\u2168")).isEqualTo("IX");          // NFKC
        assertThat(SaslPrep.prepare("a\u00A0b")).isEqualTo("a b");       // non-ASCII space to space
        assertThatThrownBy(() -> SaslPrep.prepare("\u0007")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("U+0007");
    }
}
