package io.roboco.sandbox.web;

import io.javalin.http.Context;

/**
 * The two cookies the dashboard sets, always {@code HttpOnly; SameSite=Strict}, plus {@code Secure}
 * when the request came over https (the server itself listens on plain http on 127.0.0.1).
 */
public final class Cookies {
    public static final String SESSION = "roboco_session";
    /** Double-submit token for the sign-in form, which has no session yet. */
    public static final String SIGN_IN = "roboco_signin";

    private Cookies() {}

    static void set(Context ctx, String name, String value, String path, long maxAgeSeconds) {
        ctx.res()
                .addHeader(
                        "Set-Cookie",
                        name + "=" + value + "; Path=" + path + "; Max-Age=" + maxAgeSeconds
                                + "; HttpOnly; SameSite=Strict"
                                + ("https".equalsIgnoreCase(ctx.scheme()) ? "; Secure" : ""));
    }

    static void clear(Context ctx, String name, String path) {
        set(ctx, name, "", path, 0);
    }
}
