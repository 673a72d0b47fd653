package io.roboco.sandbox.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.roboco.sandbox.engine.kv.KvEngine;
import io.roboco.sandbox.pages.WebClient;
import io.roboco.sandbox.provision.SandboxLabels;
import io.roboco.sandbox.server.RunningServer;
import io.roboco.sandbox.server.SandboxServer;
import io.roboco.sandbox.server.config.ServerConfig;
import io.roboco.sandbox.testkit.ApiClient;
import io.roboco.sandbox.testkit.FakeContainerRuntime;
import io.roboco.sandbox.testkit.FakeSettingsStore;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Adding an engine is one class in its own package plus one registry line: {@link KvEngine} exists only in test code
 * and nothing in the product names it, yet it registers, its allowlist is what refusals name, it has its checkbox
 * and plugins on the Sandbox card, and it provisions (through the fake runtime) with its env and its plugins.
 */
class FourthEngineTest {
    @TempDir
    Path dir;

    private final FakeContainerRuntime runtime = new FakeContainerRuntime();
    private RunningServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void aFourthEngineInTestCodeRegistersIsValidatedShowsOnTheCardAndProvisions() {
        EngineRegistry registry = EngineRegistry.defaults().with(new KvEngine()); // the one registry line

        assertThat(registry.names()).containsExactly("kv", "mongo", "postgres", "redis");
        assertThatThrownBy(() -> registry.require("mysql"))
                .hasMessage("no engine 'mysql'; known: kv, mongo, postgres, redis");

        server = SandboxServer.start(
                ServerConfig.defaults(dir)
                        .withPort(0)
                        .withFlag(true)
                        .withTokens(ApiClient.API_TOKEN, ApiClient.ADMIN_TOKEN),
                runtime,
                registry,
                new FakeSettingsStore(),
                Clock.systemUTC());
        ApiClient api = new ApiClient(server.port());
        api.working("dev-1", "shop", "[\"kv\"]");

        // Its allowlist is the one the admin API and the verb refuse with.
        ApiClient.Reply badStanding = api.admin(
                "PUT",
                "/api/projects/shop",
                "{\"sandbox_services\":[\"kv\"],\"sandbox_extensions\":{\"kv\":[\"lua\"]}}");
        assertThat(badStanding.status()).isEqualTo(400);
        assertThat(badStanding.body()).contains("'lua'").contains("allowed: compression, ttl");
        assertThat(api.admin(
                                "PUT",
                                "/api/projects/shop",
                                "{\"sandbox_services\":[\"kv\"],\"sandbox_extensions\":{\"kv\":[\"ttl\"]}}")
                        .status())
                .isEqualTo(200);
        ApiClient.Reply badPerCall = api.verb("dev-1", "request_sandbox", "{\"extensions\":{\"kv\":[\"lua\"]}}");
        assertThat(badPerCall.json()).containsEntry("ok", false).containsEntry("error", "refused");
        assertThat((String) badPerCall.json().get("reason"))
                .isEqualTo("kv plugin 'lua' is not allowed; allowed: compression, ttl");
        assertThat(runtime.startCount()).isZero();

        // The Sandbox card, generated from the registry, has it and its plugins (the standing one checked).
        WebClient web = new WebClient(server.port());
        web.signIn(ApiClient.ADMIN_TOKEN);
        String card = web.get("/projects/shop").body();
        assertThat(card)
                .contains("id=\"svc-kv\"")
                .contains("KeyVault")
                .contains("Plugins")
                .contains("id=\"feat-kv-compression\"")
                .contains("id=\"feat-kv-ttl\"");
        assertThat(card.substring(card.indexOf("id=\"feat-kv-ttl\""))).startsWith("id=\"feat-kv-ttl\" checked");

        // It provisions through the fake runtime: its container, its env, its plugins loaded by exec.
        ApiClient.Reply granted = api.verb("dev-1", "request_sandbox", "{\"extensions\":{\"kv\":[\"compression\"]}}");
        assertThat(granted.ok()).as(granted.toString()).isTrue();
        assertThat(granted.grants().get("kv"))
                .containsKeys(
                        "ROBOCO_TEST_KV_HOST",
                        "ROBOCO_TEST_KV_PORT",
                        "ROBOCO_TEST_KV_USER",
                        "ROBOCO_TEST_KV_PASSWORD",
                        "ROBOCO_TEST_KV_URL");
        assertThat(granted.body()).contains("\"available_plugins\":[\"compression\",\"ttl\"]");
        assertThat(runtime.list(Map.of(SandboxLabels.SERVICE, "kv")))
                .singleElement()
                .satisfies(c -> assertThat(c.labels()).containsEntry(SandboxLabels.AGENT, "dev-1"));
        assertThat(runtime.execCalls())
                .extracting(FakeContainerRuntime.ExecCall::command)
                .containsExactly(
                        List.of("kv-cli", "plugin", "load", "compression"), List.of("kv-cli", "plugin", "load", "ttl"));
        assertThat(api.verb("dev-1", "request_sandbox", "{}").body())
                .as("the second call is a cache hit")
                .contains(granted.grants().get("kv").get("ROBOCO_TEST_KV_PASSWORD"));
        assertThat(runtime.startCount()).isEqualTo(1);
    }
}
