package io.roboco.sandbox.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class SqlTokenizerTest {

    private static List<String> texts(String sql) throws SqlSyntaxException {
        return SqlTokenizer.tokenize(sql).stream().map(SqlToken::text).toList();
    }

    private static List<TokenKind> kinds(String sql) throws SqlSyntaxException {
        return SqlTokenizer.tokenize(sql).stream().map(SqlToken::kind).toList();
    }

    @Test
    void standardStringsDoubleTheirQuotesAndKeepBackslashesLiteral() throws Exception {
        assertThat(texts("SELECT 'it''s', 'a\\'")).containsExactly("SELECT", "'it''s'", ",", "'a\\'");
    }

    @Test
    void escapeStringsHonourBackslashEscapesAndDoubledQuotes() throws Exception {
        assertThat(texts("SELECT E'\\'', e'a''b', E'\\\\';"))
                .containsExactly("SELECT", "E'\\''", ",", "e'a''b'", ",", "E'\\\\'", ";");
    }

    @Test
    void anEAtTheEndOfAWordDoesNotStartAnEscapeString() throws Exception {
        assertThat(texts("SELECT somee'\\';")).containsExactly("SELECT", "somee", "'\\'", ";");
    }

    @Test
    void prefixedStringsQuoteLikeStandardStrings() throws Exception {
        assertThat(texts("SELECT B'101', X'1F', N'x', U&'d\\0061t' UESCAPE '\\'"))
                .containsExactly("SELECT", "B'101'", ",", "X'1F'", ",", "N'x'", ",", "U&'d\\0061t'", "UESCAPE", "'\\'");
    }

    @Test
    void dollarQuotesNeedTheirExactTagAndADollarInsideAWordBelongsToTheWord() throws Exception {
        assertThat(texts("SELECT $a$ $b$ ; $A$ $a$, $$x$$, x$a$ , $1"))
                .containsExactly("SELECT", "$a$ $b$ ; $A$ $a$", ",", "$$x$$", ",", "x$a$", ",", "$1");
        assertThat(kinds("SELECT $1")).containsExactly(TokenKind.WORD, TokenKind.PARAMETER);
    }

    @Test
    void quotedIdentifiersKeepCaseAndUnescapeDoubledQuotes() throws Exception {
        SqlToken token = SqlTokenizer.tokenize("SELECT \"We\"\"ird\"").get(1);
        assertThat(token.kind()).isEqualTo(TokenKind.QUOTED_IDENTIFIER);
        assertThat(token.value()).isEqualTo("We\"ird");
        assertThat(SqlTokenizer.tokenize("SELECT MixedCase").get(1).value()).isEqualTo("mixedcase");
    }

    @Test
    void blockCommentsNestAndLineCommentsEndAtEitherNewline() throws Exception {
        assertThat(texts("SELECT /* a /* b */ still ; */ 1 -- x ; y\n, 2 --z\r, 3"))
                .containsExactly("SELECT", "1", ",", "2", ",", "3");
    }

    @Test
    void aCommentStartInsideAnOperatorRunEndsTheOperator() throws Exception {
        assertThat(texts("SELECT 2 *-- c\n3, 4 +/* c */5, */**/"))
                .containsExactly("SELECT", "2", "*", "3", ",", "4", "+", "5", ",", "*");
    }

    @Test
    void punctuationAndCastsAreTokensOfTheirOwn() throws Exception {
        assertThat(texts("SELECT a::text, b[1:2], f(x := 1)"))
                .containsExactly(
                        "SELECT", "a", "::", "text", ",", "b", "[", "1", ":", "2", "]", ",", "f", "(", "x", ":=", "1",
                        ")");
    }

    @Test
    void numbersStopBeforeLettersSoAKeywordCannotHideInsideOne() throws Exception {
        assertThat(texts("SELECT 1union, 1.5e3, .5, 0x1F, 1_000"))
                .containsExactly("SELECT", "1", "union", ",", "1.5e3", ",", ".5", ",", "0x1F", ",", "1_000");
    }

    @Test
    void refusesWhatItCannotReadWithCertainty() {
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT 'open"))
                .hasMessageContaining("unterminated string literal at offset 7");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT E'\\'"))
                .hasMessageContaining("unterminated string literal");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT /* /* */"))
                .hasMessageContaining("unterminated /* comment");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT $x$ open"))
                .hasMessageContaining("unterminated dollar-quoted string $x$");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT \"open"))
                .hasMessageContaining("unterminated quoted identifier");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT \"\"")).hasMessageContaining("zero-length");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT U&\"x\""))
                .hasMessageContaining("U&\"…\" identifiers are not accepted");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT {fn now()}")).hasMessageContaining("JDBC escape");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT $ 1")).hasMessageContaining("'$' that starts neither");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT 1 \\g"))
                .hasMessageContaining("unexpected character U+005C");
        assertThatThrownBy(() -> SqlTokenizer.tokenize("SELECT 1\0")).hasMessageContaining("NUL");
    }
}
