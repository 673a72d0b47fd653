package io.roboco.sandbox.ledger;

import java.util.Set;

/** The janitor's view of the {@link ContainerLedger}: ids of every container this process keeps, right now. */
@FunctionalInterface
public interface OwnedContainers {
    Set<String> ownedIds();
}
