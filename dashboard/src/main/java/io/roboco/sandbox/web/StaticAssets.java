package io.roboco.sandbox.web;

import io.javalin.http.Context;
import io.javalin.http.NotFoundResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's static files, served from {@code /web/static/} on the classpath through one
 * declared route ({@link Access#ANYONE}); only the names listed here exist.
 */
final class StaticAssets {
    private static final Map<String, String> FILES = Map.of("app.css", "text/css; charset=utf-8");
    private final Map<String, byte[]> cache = new ConcurrentHashMap<>();

    void serve(Context ctx) {
        String name = ctx.pathParam("file");
        String type = FILES.get(name);
        if (type == null) {
            throw new NotFoundResponse();
        }
        byte[] body = cache.computeIfAbsent(name, StaticAssets::load);
        ctx.header("X-Content-Type-Options", "nosniff");
        ctx.header("Cache-Control", "public, max-age=300");
        ctx.contentType(type).result(body);
    }

    private static byte[] load(String name) {
        try (InputStream in = StaticAssets.class.getResourceAsStream("/web/static/" + name)) {
            if (in == null) {
                throw new IllegalStateException("static file " + name + " missing from the jar");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
