package io.roboco.sandbox.web;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import io.javalin.http.Context;
import java.util.Map;

/**
 * Renders the jte templates in {@code src/main/jte}, compiled to Java at build time (so the
 * server needs no template compiler), with HTML auto-escaping of every {@code ${...}}.
 */
final class Templates {
    private final TemplateEngine engine = TemplateEngine.createPrecompiled(ContentType.Html);

    void render(Context ctx, int status, String template, Map<String, Object> params) {
        StringOutput out = new StringOutput();
        engine.render(template, params, out);
        Headers.page(ctx);
        ctx.status(status).html(out.toString());
    }
}
