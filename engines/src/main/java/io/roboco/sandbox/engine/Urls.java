package io.roboco.sandbox.engine;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** Builds the connection URLs agents export. */
public final class Urls {
    private Urls() {}

    /** {@code scheme://user:password@host:port/path}, user and password percent-encoded. */
    public static String of(String scheme, String user, String password, Endpoint endpoint, String path) {
        return scheme + "://" + encode(user) + ":" + encode(password) + "@" + host(endpoint.host()) + ":"
                + endpoint.port() + "/" + path;
    }

    public static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String host(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
