package io.roboco.sandbox.inspect.sql;

import io.roboco.sandbox.sql.SqlSyntaxException;
import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.SqlTokenizer;
import io.roboco.sandbox.sql.TokenKind;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The first layer of the inspection guard: accepts exactly one {@code SELECT}, {@code WITH} or {@code EXPLAIN}
 * statement that names no write, lock, dangerous function or denied column. It works on tokens from
 * {@link SqlTokenizer}, never on regexes over the text, and it is not trusted alone: the executor runs what
 * it allows in a proven read-only transaction that is always rolled back (see docs/agents.md).
 */
public final class QueryGuard {
    private static final int MAX_REASONS = 6;
    private static final Set<String> FIRST_WORDS = Set.of("select", "with", "explain");
    private static final Set<String> EXPLAINABLE = Set.of("select", "with", "values");

    private final ColumnPatterns deniedColumns;
    private final boolean allowExplainAnalyze;
    private final int maxChars;

    /**
     * @param deniedColumns       names never read
     * @param allowExplainAnalyze whether EXPLAIN ANALYZE (which executes the statement) is allowed
     * @param maxChars            longest statement accepted
     */
    public QueryGuard(ColumnPatterns deniedColumns, boolean allowExplainAnalyze, int maxChars) {
        this.deniedColumns = deniedColumns;
        this.allowExplainAnalyze = allowExplainAnalyze;
        this.maxChars = maxChars;
    }

    /** A statement for {@code run_readonly_query}: one SELECT, WITH or EXPLAIN. */
    public GuardVerdict check(String sql) {
        return check(sql, FIRST_WORDS);
    }

    /** A statement the explain tools wrap in their own {@code EXPLAIN (…)}: one SELECT or WITH. */
    public GuardVerdict checkExplainable(String sql) {
        return check(sql, Set.of("select", "with"));
    }

    private GuardVerdict check(String sql, Set<String> firstWords) {
        if (sql == null || sql.isBlank()) {
            return refused(Violation.EMPTY, "the statement is empty; send one " + kinds(firstWords) + " statement");
        }
        if (sql.length() > maxChars) {
            return refused(
                    Violation.TOO_LONG,
                    "the statement has " + sql.length() + " characters; the limit is " + maxChars
                            + ". Send a shorter query");
        }
        List<SqlToken> tokens;
        try {
            tokens = SqlTokenizer.tokenize(sql);
        } catch (SqlSyntaxException e) {
            return refused(
                    Violation.SYNTAX, "the statement cannot be read: " + e.getMessage() + ". Fix it and send it again");
        }
        if (tokens.isEmpty()) {
            return refused(
                    Violation.EMPTY, "the statement holds only comments; send one " + kinds(firstWords) + " statement");
        }
        Optional<Violation> split = singleStatement(sql, tokens);
        if (split.isPresent()) {
            return new GuardVerdict.Refused(List.of(split.get()));
        }
        List<SqlToken> statement =
                tokens.get(tokens.size() - 1).is(";") ? tokens.subList(0, tokens.size() - 1) : tokens;
        SqlToken first = statement.get(0);
        if (first.kind() != TokenKind.WORD || !firstWords.contains(first.value())) {
            return refused(
                    Violation.STATEMENT_KIND,
                    "only " + kinds(firstWords) + " statements are accepted; this one starts with '" + first.text()
                            + "'. Inspection is read-only: to change data, use your own connection (the credentials from request_sandbox)");
        }
        Map<String, Violation> found = new LinkedHashMap<>();
        int body = 0;
        boolean analyze = false;
        if (first.isWord("explain")) {
            ExplainPrefix prefix = ExplainPrefix.read(statement);
            body = prefix.bodyStart();
            analyze = prefix.analyze();
            if (analyze && !allowExplainAnalyze) {
                add(
                        found,
                        Violation.EXPLAIN_ANALYZE,
                        "EXPLAIN ANALYZE executes the statement, and this project does not allow it; "
                                + "use EXPLAIN without ANALYZE for the plan");
            }
            if (body >= statement.size()
                    || statement.get(body).kind() != TokenKind.WORD
                    || !EXPLAINABLE.contains(statement.get(body).value())) {
                String what =
                        body < statement.size() ? "'" + statement.get(body).text() + "'" : "nothing";
                add(
                        found,
                        Violation.STATEMENT_KIND,
                        "EXPLAIN is accepted here for a SELECT, WITH or VALUES statement; this one explains " + what);
            }
        }
        new TokenRules(statement, body, deniedColumns, found).apply();
        if (found.isEmpty()) {
            return new GuardVerdict.Allowed(first.value(), analyze);
        }
        return new GuardVerdict.Refused(
                new ArrayList<>(found.values()).subList(0, Math.min(MAX_REASONS, found.size())));
    }

    /** Nothing may follow a ';' but whitespace: not a statement, and not a comment (the JDBC driver would send it as one). */
    private static Optional<Violation> singleStatement(String sql, List<SqlToken> tokens) {
        for (int k = 0; k < tokens.size(); k++) {
            if (!tokens.get(k).is(";")) {
                continue;
            }
            if (k == 0) {
                return Optional.of(new Violation(
                        Violation.EMPTY,
                        "the statement starts with ';'; send one statement without an empty one before it"));
            }
            if (k < tokens.size() - 1) {
                return Optional.of(new Violation(
                        Violation.MULTIPLE_STATEMENTS,
                        "only one statement per call: another statement follows the ';' at offset "
                                + tokens.get(k).start()
                                + ". Send one SELECT, WITH or EXPLAIN, with at most a final ';'"));
            }
            if (!sql.substring(tokens.get(k).end()).isBlank()) {
                return Optional.of(new Violation(
                        Violation.MULTIPLE_STATEMENTS,
                        "only whitespace may follow the final ';' (the JDBC driver would send "
                                + "a comment there as a second statement); remove what follows it"));
            }
        }
        return Optional.empty();
    }

    private static String kinds(Set<String> firstWords) {
        return firstWords.contains("explain") ? "SELECT, WITH or EXPLAIN" : "SELECT or WITH";
    }

    private static GuardVerdict refused(String rule, String reason) {
        return new GuardVerdict.Refused(List.of(new Violation(rule, reason)));
    }

    static void add(Map<String, Violation> found, String rule, String reason) {
        found.putIfAbsent(reason.toLowerCase(Locale.ROOT), new Violation(rule, reason));
    }
}
