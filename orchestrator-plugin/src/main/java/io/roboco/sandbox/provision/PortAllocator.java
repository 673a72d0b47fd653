package io.roboco.sandbox.provision;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.Set;

/**
 * Free loopback ports for host-network sandboxes. Asks the kernel for an ephemeral port and never
 * hands the same port out twice among the last {@value #MEMORY} allocations, so concurrent
 * provisioning in this process cannot collide with itself.
 */
public final class PortAllocator {
    private static final int MEMORY = 4096;
    private final Deque<Integer> recent = new ArrayDeque<>();
    private final Set<Integer> recentSet = new HashSet<>();

    public synchronized int next() {
        for (int attempt = 0; attempt < 64; attempt++) {
            int port = probe();
            if (recentSet.add(port)) {
                recent.addLast(port);
                if (recent.size() > MEMORY) {
                    recentSet.remove(recent.removeFirst());
                }
                return port;
            }
        }
        throw new IllegalStateException("no free loopback port found after 64 attempts");
    }

    private static int probe() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot bind a loopback port", e);
        }
    }
}
