package io.roboco.sandbox.inspect.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Random statements built from the pieces lexers disagree on (quotes, escapes, dollar tags, comments, semicolons),
 * for differential tests of the guard against pgjdbc's lexer and the server's. Seeded; print the seed.
 */
public final class RandomStatements {
    private static final String[] PIECES = {
        " ",
        "\n",
        "\r",
        "\t",
        "1",
        "x",
        "a$b$",
        "e",
        "E",
        ",",
        "(",
        ")",
        "||",
        "+",
        "-",
        "*",
        "/",
        "::text",
        "'",
        "''",
        "'a'",
        "'it''s'",
        "'\\'",
        "E'",
        "E'\\''",
        "e'x\\'",
        "U&'",
        "X'",
        "b'",
        "N'",
        "\"",
        "\"q\"",
        "\"a\"\"b\"",
        "$",
        "$$",
        "$a$",
        "$b$",
        "$a$x$a$",
        "$1",
        "--",
        "--c\n",
        "/*",
        "*/",
        "/* c */",
        "/* /* */ */",
        ";",
        "; SELECT 2",
        "\\",
        "?",
        "??",
        " DELETE FROM t",
        " COMMIT",
        " pg_sleep(1)",
        " FROM t",
        " AS s"
    };

    /** Complete literals whose insides hold what a wrong lexer would take for a statement end or a comment. */
    private static final String[] LITERALS = {
        "'a;b'",
        "'it''s; x'",
        "E'\\'; x'",
        "E'x\\\\'",
        "e'\\\\\\'; '",
        "$$;$$",
        "$a$ $b$ ; $a$",
        "$q$'; --$q$",
        "U&'\\0041;'",
        "'--;'",
        "'/*;'",
        "E'/*'",
        "$$*/;$$",
        "'\\'",
        "E'\\''''",
        "1",
        "''",
        "N'x;'",
        "X'1F'",
        "B'101'"
    };

    private static final String[] JOINS = {
        " || ", "||", " /* ; */ || ", " /* /* ; */ ; */||", "\n-- ; '\n|| ", " --\r|| ", "/**/||"
    };

    private RandomStatements() {}

    /** Mostly broken text: for comparing lexers where they fail. */
    public static List<String> generate(long seed, int count) {
        Random random = new Random(seed);
        List<String> out = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            StringBuilder sql = new StringBuilder("SELECT ");
            int pieces = 1 + random.nextInt(9);
            for (int p = 0; p < pieces; p++) {
                sql.append(PIECES[random.nextInt(PIECES.length)]);
            }
            out.add(sql.toString());
        }
        return out;
    }

    /**
     * Valid SQL: {@code SELECT lit || lit … [AS "alias"]}, and in about a third of them a real second statement
     * after a ';'. Postgres parses each, so it says exactly when there are several commands.
     */
    public static List<String> valid(long seed, int count) {
        Random random = new Random(seed);
        List<String> out = new ArrayList<>(count);
        for (int k = 0; k < count; k++) {
            StringBuilder sql = new StringBuilder("SELECT ").append(pick(random, LITERALS));
            int more = random.nextInt(5);
            for (int p = 0; p < more; p++) {
                sql.append(pick(random, JOINS)).append(pick(random, LITERALS));
            }
            if (random.nextInt(4) == 0) {
                sql.append(" AS \"x;\"\"y\"");
            }
            if (random.nextInt(3) == 0) {
                sql.append(random.nextBoolean() ? "; SELECT " + pick(random, LITERALS) : ";SELECT 1");
            }
            out.add(sql.toString());
        }
        return out;
    }

    private static String pick(Random random, String[] from) {
        return from[random.nextInt(from.length)];
    }
}
