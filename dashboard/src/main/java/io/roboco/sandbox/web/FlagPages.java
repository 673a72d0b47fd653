package io.roboco.sandbox.web;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpStatus;
import io.roboco.sandbox.plugin.OperatorConsole;
import io.roboco.sandbox.settings.FlagStatus;
import io.roboco.sandbox.settings.FlagStore;
import java.util.Map;

/**
 * Settings → Feature Flags: the "Sandboxed per-agent test DB/Redis" switch. Saving stores the
 * value; the running server keeps its effective value until the next restart, and the page says so
 * ("pending restart", the same rule as the API's {@code pending_restart}).
 */
final class FlagPages {
    private final OperatorConsole console;
    private final Boolean envOverride;
    private final Templates templates;

    FlagPages(OperatorConsole console, Boolean envOverride, Templates templates) {
        this.console = console;
        this.envOverride = envOverride;
        this.templates = templates;
    }

    void register(Javalin app) {
        app.get("/flags", this::show, Access.ADMIN);
        app.post("/flags/" + FlagStore.SANDBOX_DB_ENABLED, this::save, Access.ADMIN);
    }

    private void show(Context ctx) {
        FlagStatus status = console.flag(envOverride);
        templates.render(
                ctx,
                200,
                "flags.jte",
                Map.of(
                        "page",
                        Page.of("Feature Flags", "flags", WebGate.session(ctx)),
                        "flag",
                        status,
                        "name",
                        FlagStore.SANDBOX_DB_ENABLED));
    }

    private void save(Context ctx) {
        boolean enabled = "true".equals(ctx.formParam("enabled"));
        console.storeFlag(enabled);
        FlagStatus status = console.flag(envOverride);
        String value = enabled ? "on" : "off";
        String message;
        if (status.pendingRestart()) {
            message = "Saved: stored " + value + ". It takes effect on the next backend restart.";
        } else if (envOverride != null) {
            message = "Saved: stored " + value + ". The environment setting " + FlagStore.SANDBOX_DB_ENABLED + "="
                    + envOverride + " decides the value at each start, so nothing changes.";
        } else {
            message = "Saved: stored " + value + ", the same as the running server. Nothing is pending.";
        }
        WebGate.session(ctx).flash(message, false);
        ctx.redirect("/flags", HttpStatus.SEE_OTHER);
    }
}
