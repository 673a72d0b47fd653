package io.roboco.sandbox.inspect.sql;

import io.roboco.sandbox.sql.SqlToken;
import io.roboco.sandbox.sql.TokenKind;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * {@code EXPLAIN [ANALYZE] [VERBOSE]} or {@code EXPLAIN (option [value], …)} in front of the explained statement.
 *
 * @param bodyStart index of the explained statement's first token
 * @param analyze   whether the options ask for ANALYZE (which executes the statement)
 */
record ExplainPrefix(int bodyStart, boolean analyze) {
    private static final Set<String> ANALYZE = Set.of("analyze", "analyse");
    private static final Set<String> FALSE = Set.of("false", "off", "0");

    /** Reads the prefix of {@code tokens}, whose first token is {@code EXPLAIN}. */
    static ExplainPrefix read(List<SqlToken> tokens) {
        int j = 1;
        if (j < tokens.size() && tokens.get(j).is("(")) {
            boolean analyze = false;
            int depth = 0;
            int optionStart = j + 1;
            for (int k = j; k < tokens.size(); k++) {
                SqlToken tok = tokens.get(k);
                if (tok.is("(")) {
                    depth++;
                } else if (tok.is(")")) {
                    depth--;
                }
                if ((depth == 0 && tok.is(")")) || (depth == 1 && tok.is(","))) {
                    analyze |= asksToAnalyze(tokens.subList(optionStart, k));
                    optionStart = k + 1;
                }
                if (depth == 0) {
                    return new ExplainPrefix(k + 1, analyze);
                }
            }
            return new ExplainPrefix(tokens.size(), analyze);
        }
        boolean analyze = false;
        while (j < tokens.size()
                && (tokens.get(j).isWord("verbose")
                        || (tokens.get(j).kind() == TokenKind.WORD
                                && ANALYZE.contains(tokens.get(j).value())))) {
            analyze |= !tokens.get(j).isWord("verbose");
            j++;
        }
        return new ExplainPrefix(j, analyze);
    }

    private static boolean asksToAnalyze(List<SqlToken> option) {
        if (option.isEmpty()
                || option.get(0).kind() != TokenKind.WORD
                || !ANALYZE.contains(option.get(0).value())) {
            return false;
        }
        return option.size() == 1 || !FALSE.contains(option.get(1).value().toLowerCase(Locale.ROOT));
    }
}
