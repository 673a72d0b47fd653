package io.roboco.sandbox.store;

import io.roboco.sandbox.settings.SettingsStoreException;
import java.util.Objects;
import java.util.regex.Pattern;

/** Which database a JDBC URL names, and how to show it in a message without its password. */
record DatabaseUrl(String url, Kind kind) {
    enum Kind {
        H2,
        POSTGRES
    }

    private static final Pattern PASSWORD_PARAM = Pattern.compile("(?i)((?:ssl)?password=)[^&;]*");
    private static final Pattern USER_INFO = Pattern.compile("//[^/@?;]*@");

    static DatabaseUrl parse(String url) {
        Objects.requireNonNull(url, "jdbcUrl");
        if (url.startsWith("jdbc:h2:")) {
            return new DatabaseUrl(url, Kind.H2);
        }
        if (url.startsWith("jdbc:postgresql:")) {
            return new DatabaseUrl(url, Kind.POSTGRES);
        }
        throw new SettingsStoreException(
                "unsupported settings database URL '" + redact(url)
                        + "'; supported: jdbc:h2:file:<path> (embedded, the default) and jdbc:postgresql://<host>:<port>/<database>");
    }

    /** The URL with any password replaced by {@code ***}. */
    String redacted() {
        return redact(url);
    }

    static String redact(String url) {
        String s = PASSWORD_PARAM.matcher(url).replaceAll("$1***");
        return USER_INFO.matcher(s).replaceAll("//***@");
    }
}
