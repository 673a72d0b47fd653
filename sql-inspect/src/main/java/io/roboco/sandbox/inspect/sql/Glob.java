package io.roboco.sandbox.inspect.sql;

import java.util.Locale;
import java.util.regex.Pattern;

/** A case-insensitive whole-name glob: {@code *} any run of characters, {@code ?} one character. */
final class Glob {
    private Glob() {}

    static Pattern compile(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char c : glob.toLowerCase(Locale.ROOT).toCharArray()) {
            if (c == '*') {
                regex.append(".*");
            } else if (c == '?') {
                regex.append('.');
            } else {
                regex.append(Pattern.quote(String.valueOf(c)));
            }
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL);
    }
}
