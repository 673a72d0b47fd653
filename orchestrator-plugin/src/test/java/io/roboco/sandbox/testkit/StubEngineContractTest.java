package io.roboco.sandbox.testkit;

import io.roboco.sandbox.engine.Engine;
import java.util.Set;
import org.junit.jupiter.api.Nested;

class StubEngineContractTest extends EngineContract {
    @Override
    protected Engine engine() {
        return new StubEngine("postgres", Set.of("pg_trgm"));
    }

    /** The registry's stubs, with the real engines' env keys, pass it too. */
    @Nested
    class RegistryStubs extends EngineContract {
        @Override
        protected Engine engine() {
            return StubEngine.registry().require("redis");
        }
    }
}
