package io.roboco.sandbox.server;

import io.roboco.sandbox.server.config.ConfigException;
import io.roboco.sandbox.server.config.ServerConfig;
import java.io.PrintStream;

/** The orchestrator and admin tokens: configured, or generated once into the state directory and shown at that start only. */
final class ServerTokens {
    private final StateDir.Token api;
    private final StateDir.Token admin;

    private ServerTokens(StateDir.Token api, StateDir.Token admin) {
        this.api = api;
        this.admin = admin;
    }

    static ServerTokens open(StateDir state, ServerConfig config) {
        StateDir.Token api = state.token("api-token", config.apiToken());
        StateDir.Token admin = state.token("admin-token", config.adminToken());
        if (api.value().equals(admin.value())) {
            throw new ConfigException(
                    "the orchestrator and admin tokens must differ; change ROBOCO_SANDBOX_API_TOKEN or ROBOCO_SANDBOX_ADMIN_TOKEN");
        }
        return new ServerTokens(api, admin);
    }

    String api() {
        return api.value();
    }

    String admin() {
        return admin.value();
    }

    /** Prints the tokens generated at this start (later starts read them silently). */
    void announce(PrintStream console) {
        if (api.generated()) {
            console.println("orchestrator token written to " + api.file() + ": " + api.value());
        }
        if (admin.generated()) {
            console.println("admin token written to " + admin.file() + ": " + admin.value());
        }
    }
}
