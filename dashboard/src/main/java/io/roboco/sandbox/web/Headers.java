package io.roboco.sandbox.web;

import io.javalin.http.Context;

/** Response headers for pages: no caching of admin pages, no scripts, no framing, no referrer. */
final class Headers {
    static final String CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; "
            + "frame-ancestors 'none'; base-uri 'none'";

    private Headers() {}

    static void page(Context ctx) {
        ctx.header("Content-Security-Policy", CSP);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("X-Frame-Options", "DENY");
        ctx.header("Referrer-Policy", "no-referrer");
        ctx.header("Cache-Control", "no-store");
    }
}
