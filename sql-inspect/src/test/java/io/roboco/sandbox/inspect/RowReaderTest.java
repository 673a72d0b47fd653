package io.roboco.sandbox.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RowReaderTest {

    @Test
    void cutsTextToWholeCharactersWithinTheByteCap() {
        assertThat(RowReader.cutToBytes("abcdef", 4)).isEqualTo("abcd");
        assertThat(RowReader.cutToBytes("ééé", 5)).isEqualTo("éé");
        assertThat(RowReader.cutToBytes("a\uD83D\uDE00b", 4)).isEqualTo("a");
        assertThat(RowReader.cutToBytes("a\uD83D\uDE00b", 5)).isEqualTo("a\uD83D\uDE00");
    }
}
