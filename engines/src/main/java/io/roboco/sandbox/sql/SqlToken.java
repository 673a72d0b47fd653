package io.roboco.sandbox.sql;

/**
 * One lexical token of a statement.
 *
 * @param value for {@link TokenKind#WORD} the lower-cased word, for {@link TokenKind#QUOTED_IDENTIFIER} the
 *              identifier with {@code ""} unescaped, otherwise the text as written
 * @param start offset of the first character in the statement
 * @param end   offset just past the last character
 */
public record SqlToken(TokenKind kind, String text, String value, int start, int end) {

    /** An unquoted word equal to {@code word} (give it in lower case). */
    public boolean isWord(String word) {
        return kind == TokenKind.WORD && value.equals(word);
    }

    /** Punctuation or operator exactly {@code symbol}. */
    public boolean is(String symbol) {
        return (kind == TokenKind.PUNCTUATION || kind == TokenKind.OPERATOR) && text.equals(symbol);
    }

    /** A name: an unquoted word or a quoted identifier. */
    public boolean isName() {
        return kind == TokenKind.WORD || kind == TokenKind.QUOTED_IDENTIFIER;
    }
}
