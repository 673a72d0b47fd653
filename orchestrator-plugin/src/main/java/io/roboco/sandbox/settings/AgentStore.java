package io.roboco.sandbox.settings;

import java.util.List;
import java.util.Optional;

/** Agents' spawn roles and active tasks. */
public interface AgentStore {
    Optional<Agent> findAgent(String slug);

    List<Agent> allAgents();

    /** Creates or replaces the agent with this slug. */
    void saveAgent(Agent agent);

    void deleteAgent(String slug);
}
