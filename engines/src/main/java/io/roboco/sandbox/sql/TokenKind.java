package io.roboco.sandbox.sql;

/** What a {@link SqlToken} is. Whitespace and comments are not tokens. */
public enum TokenKind {
    /** An unquoted word: a keyword or an identifier; its value is folded to lower case, as Postgres folds it. */
    WORD,
    /** {@code "…"}: an identifier kept exactly as written, {@code ""} unescaped. */
    QUOTED_IDENTIFIER,
    /** {@code '…'}, {@code E'…'}, {@code B'…'}, {@code X'…'}, {@code N'…'}, {@code U&'…'} or {@code $tag$…$tag$}. */
    STRING,
    NUMBER,
    /** {@code $1}, {@code $2}, …: a positional parameter. */
    PARAMETER,
    /** A run of operator characters ({@code + - * / < > = ~ ! @ # % ^ & | ` ?}). */
    OPERATOR,
    /** {@code ( ) [ ] , ; . : ::}. */
    PUNCTUATION
}
