package com.example.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.roboco.sandbox.junit.RedisSandbox;
import io.roboco.sandbox.junit.RoboCoSandbox;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** A fresh Redis for every test method: what one test writes, the next never sees. */
@RoboCoSandbox(lifetime = RoboCoSandbox.Lifetime.PER_METHOD)
class CartCacheTest {
    private static final Set<String> SANDBOXES = new HashSet<>();

    @Test
    void keepsACart(RedisSandbox redis) {
        SANDBOXES.add(redis.sandboxId());
        try (Jedis jedis = connect(redis)) {
            assertNull(jedis.get("cart:ada"));
            jedis.set("cart:ada", "3 items");
            assertEquals("3 items", jedis.get("cart:ada"));
        }
    }

    @Test
    void startsEmpty(RedisSandbox redis) {
        SANDBOXES.add(redis.sandboxId());
        try (Jedis jedis = connect(redis)) {
            assertNull(jedis.get("cart:ada"));
            assertEquals(false, jedis.exists("cart:ada"));
        }
    }

    @AfterAll
    static void eachMethodHadItsOwn() {
        assertEquals(2, SANDBOXES.size());
        assertNotEquals(null, SANDBOXES.iterator().next());
    }

    private static Jedis connect(RedisSandbox redis) {
        Jedis jedis = new Jedis(redis.host(), redis.port());
        jedis.auth(redis.user(), redis.password());
        return jedis;
    }
}
