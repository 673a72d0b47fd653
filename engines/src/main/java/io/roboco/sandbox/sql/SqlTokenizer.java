package io.roboco.sandbox.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A lexer for PostgreSQL statements that follows the server's own scanner where it matters for a guard:
 * <ul>
 *   <li>{@code '…'} with {@code ''} (standard-conforming: a backslash is an ordinary character);</li>
 *   <li>{@code E'…'} with backslash escapes ({@code \'}, {@code \\}, …) and {@code ''};</li>
 *   <li>{@code B'…'}, {@code X'…'}, {@code N'…'} and {@code U&'…'}, which quote like {@code '…'};</li>
 *   <li>{@code $tag$…$tag$} and {@code $$…$$} dollar quoting; {@code $1} parameters; a {@code $} inside a word
 *       belongs to the word ({@code a$b$}), as in Postgres;</li>
 *   <li>{@code "quoted identifiers"} with {@code ""};</li>
 *   <li>{@code --} line comments and nested {@code /* … *}{@code /} block comments, also where they start
 *       inside a run of operator characters ({@code *--}, {@code +/*}), as the server ends the operator there.</li>
 * </ul>
 * It refuses what it cannot read with certainty: an unterminated quote or comment, {@code U&"…"}
 * identifiers (their escapes could spell any name), JDBC escape braces and characters Postgres rejects.
 * It assumes {@code standard_conforming_strings = on}, which the executor enforces on its connections.
 */
public final class SqlTokenizer {
    private static final String OPERATOR_CHARS = "+-*/<>=~!@#%^&|`?";

    private final String sql;
    private final List<SqlToken> tokens = new ArrayList<>();
    private int i;

    private SqlTokenizer(String sql) {
        this.sql = sql;
    }

    /** The tokens of {@code sql}, comments and whitespace left out. */
    public static List<SqlToken> tokenize(String sql) throws SqlSyntaxException {
        SqlTokenizer lexer = new SqlTokenizer(sql);
        lexer.run();
        return List.copyOf(lexer.tokens);
    }

    private void run() throws SqlSyntaxException {
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
                i++;
            } else if (startsWith("--")) {
                lineComment();
            } else if (startsWith("/*")) {
                blockComment();
            } else if (c == '\'') {
                quoted(i, i, false);
            } else if (c == '"') {
                quotedIdentifier();
            } else if (c == '$') {
                dollar();
            } else if (isIdentifierStart(c)) {
                wordOrPrefixedString();
            } else if (isDigit(c) || (c == '.' && i + 1 < n && isDigit(sql.charAt(i + 1)))) {
                number();
            } else if (c == ':') {
                int len = startsWith("::") || startsWith(":=") ? 2 : 1;
                add(TokenKind.PUNCTUATION, i, i + len, null);
            } else if ("()[],;.".indexOf(c) >= 0) {
                add(TokenKind.PUNCTUATION, i, i + 1, null);
            } else if (OPERATOR_CHARS.indexOf(c) >= 0) {
                operator();
            } else if (c == '{' || c == '}') {
                throw new SqlSyntaxException(
                        "'" + c + "' is JDBC escape syntax, which the driver would rewrite; write plain SQL", i);
            } else if (c == '\0') {
                throw new SqlSyntaxException("a NUL character is not SQL", i);
            } else {
                throw new SqlSyntaxException(
                        String.format(Locale.ROOT, "unexpected character U+%04X '%s'", (int) c, c), i);
            }
        }
    }

    private void lineComment() {
        while (i < sql.length() && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
            i++;
        }
    }

    private void blockComment() throws SqlSyntaxException {
        int start = i;
        int depth = 0;
        while (i < sql.length()) {
            if (startsWith("/*")) {
                depth++;
                i += 2;
            } else if (startsWith("*/")) {
                depth--;
                i += 2;
                if (depth == 0) {
                    return;
                }
            } else {
                i++;
            }
        }
        throw new SqlSyntaxException(
                "unterminated /* comment (block comments nest in Postgres: every /* needs its */)", start);
    }

    /** A single-quoted string whose opening quote is at {@code quote}; {@code backslashEscapes} for E'…'. */
    private void quoted(int tokenStart, int quote, boolean backslashEscapes) throws SqlSyntaxException {
        int j = quote + 1;
        while (j < sql.length()) {
            char c = sql.charAt(j);
            if (backslashEscapes && c == '\\') {
                j += 2;
            } else if (c == '\'') {
                if (j + 1 < sql.length() && sql.charAt(j + 1) == '\'') {
                    j += 2;
                } else {
                    add(TokenKind.STRING, tokenStart, j + 1, null);
                    return;
                }
            } else {
                j++;
            }
        }
        throw new SqlSyntaxException(
                "unterminated string literal" + (backslashEscapes ? " (E'' string: \\' does not end it)" : ""),
                tokenStart);
    }

    private void quotedIdentifier() throws SqlSyntaxException {
        int start = i;
        StringBuilder name = new StringBuilder();
        int j = i + 1;
        while (j < sql.length()) {
            char c = sql.charAt(j);
            if (c == '"') {
                if (j + 1 < sql.length() && sql.charAt(j + 1) == '"') {
                    name.append('"');
                    j += 2;
                    continue;
                }
                if (name.length() == 0) {
                    throw new SqlSyntaxException("zero-length quoted identifier \"\"", start);
                }
                add(TokenKind.QUOTED_IDENTIFIER, start, j + 1, name.toString());
                return;
            }
            name.append(c);
            j++;
        }
        throw new SqlSyntaxException("unterminated quoted identifier", start);
    }

    private void dollar() throws SqlSyntaxException {
        int start = i;
        int j = i + 1;
        if (j < sql.length() && isDigit(sql.charAt(j))) {
            while (j < sql.length() && isDigit(sql.charAt(j))) {
                j++;
            }
            add(TokenKind.PARAMETER, start, j, null);
            return;
        }
        if (j < sql.length() && isIdentifierStart(sql.charAt(j))) {
            while (j < sql.length() && isTagChar(sql.charAt(j))) {
                j++;
            }
        }
        if (j >= sql.length() || sql.charAt(j) != '$') {
            throw new SqlSyntaxException(
                    "'$' that starts neither a parameter ($1) nor a dollar quote ($tag$…$tag$)", start);
        }
        String tag = sql.substring(start, j + 1);
        int close = sql.indexOf(tag, j + 1);
        if (close < 0) {
            throw new SqlSyntaxException("unterminated dollar-quoted string " + tag, start);
        }
        add(TokenKind.STRING, start, close + tag.length(), null);
    }

    private void wordOrPrefixedString() throws SqlSyntaxException {
        char c = sql.charAt(i);
        char next = i + 1 < sql.length() ? sql.charAt(i + 1) : 0;
        if ((c == 'e' || c == 'E') && next == '\'') {
            quoted(i, i + 1, true);
            return;
        }
        if ("bBxXnN".indexOf(c) >= 0 && next == '\'') {
            quoted(i, i + 1, false);
            return;
        }
        if ((c == 'u' || c == 'U') && next == '&' && i + 2 < sql.length()) {
            char third = sql.charAt(i + 2);
            if (third == '\'') {
                quoted(i, i + 2, false);
                return;
            }
            if (third == '"') {
                throw new SqlSyntaxException(
                        "U&\"…\" identifiers are not accepted (their escapes can spell any name); write the name plainly",
                        i);
            }
        }
        int start = i;
        int j = i + 1;
        while (j < sql.length() && isIdentifierPart(sql.charAt(j))) {
            j++;
        }
        add(TokenKind.WORD, start, j, sql.substring(start, j).toLowerCase(Locale.ROOT));
    }

    /** Decimal (with {@code _} separators, fraction, exponent) or 0x / 0o / 0b integers; stops before anything else. */
    private void number() {
        int start = i;
        int j = i;
        if (sql.charAt(j) == '0' && j + 1 < sql.length() && "xXoObB".indexOf(sql.charAt(j + 1)) >= 0) {
            j += 2;
            while (j < sql.length() && (Character.digit(sql.charAt(j), 16) >= 0 || sql.charAt(j) == '_')) {
                j++;
            }
            add(TokenKind.NUMBER, start, j, null);
            return;
        }
        j = digits(j);
        if (j < sql.length() && sql.charAt(j) == '.' && !(j + 1 < sql.length() && sql.charAt(j + 1) == '.')) {
            j = digits(j + 1);
        }
        if (j < sql.length() && (sql.charAt(j) == 'e' || sql.charAt(j) == 'E')) {
            int k = j + 1;
            if (k < sql.length() && (sql.charAt(k) == '+' || sql.charAt(k) == '-')) {
                k++;
            }
            if (k < sql.length() && isDigit(sql.charAt(k))) {
                j = digits(k);
            }
        }
        add(TokenKind.NUMBER, start, j, null);
    }

    private int digits(int from) {
        int j = from;
        while (j < sql.length() && (isDigit(sql.charAt(j)) || (sql.charAt(j) == '_' && j > from))) {
            j++;
        }
        return j;
    }

    /** The longest run of operator characters that does not contain the start of a comment. */
    private void operator() {
        int start = i;
        int j = i;
        while (j < sql.length() && OPERATOR_CHARS.indexOf(sql.charAt(j)) >= 0) {
            if (j > start && (sql.startsWith("--", j) || sql.startsWith("/*", j))) {
                break;
            }
            j++;
        }
        add(TokenKind.OPERATOR, start, j, null);
    }

    private void add(TokenKind kind, int start, int end, String value) {
        String text = sql.substring(start, end);
        tokens.add(new SqlToken(kind, text, value == null ? text : value, start, end));
        i = end;
    }

    private boolean startsWith(String s) {
        return sql.startsWith(s, i);
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isIdentifierStart(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 0x80;
    }

    private static boolean isIdentifierPart(char c) {
        return isIdentifierStart(c) || isDigit(c) || c == '$';
    }

    private static boolean isTagChar(char c) {
        return isIdentifierStart(c) || isDigit(c);
    }
}
