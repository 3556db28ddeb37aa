package dev.homing.sim.http;

import dev.homing.sim.kvevents.KvEventEndpoints;
import dev.homing.sim.kvevents.KvEventPublisher;
import dev.homing.sim.kvevents.KvEventsConfig;
import dev.homing.sim.kvevents.KvEventsOptions;
import java.util.List;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * What {@code /get_server_info} says of the KV event streams. {@code kv_events_config} is a JSON string, as SGLang's
 * server args hold it, with the endpoints the sockets actually bound (rank 0's, which a gateway offsets by the rank
 * when the ports were given) and, with several ranks, Homing's {@code homing_dp_endpoints}: each rank's own, which
 * is where to look when the ports were ephemeral. {@code kv_events_stats} counts each rank's batches (Homing).
 */
final class KvEventsInfo {

    private KvEventsInfo() {
    }

    static String config(ObjectMapper json, KvEventsOptions options, List<KvEventEndpoints> bound) {
        KvEventsConfig config = options.config();
        KvEventEndpoints first = bound.getFirst();
        ObjectNode info = json.createObjectNode();
        info.put("publisher", "zmq");
        info.put("endpoint", first.events().toString());
        info.put("replay_endpoint", first.replay() == null ? null : first.replay().toString());
        info.put("topic", config.topic());
        info.put("buffer_steps", config.bufferSteps());
        info.put("hwm", config.hwm());
        info.put("max_queue_size", config.maxQueueSize());
        info.put("homing_format", options.format().flag());
        if (bound.size() > 1) {
            ArrayNode ranks = info.putArray("homing_dp_endpoints");
            for (KvEventEndpoints rank : bound) {
                ObjectNode entry = ranks.addObject();
                entry.put("dp_rank", rank.dpRank());
                entry.put("endpoint", rank.events().toString());
                entry.put("replay_endpoint", rank.replay() == null ? null : rank.replay().toString());
            }
        }
        return json.writeValueAsString(info);
    }

    static void stats(ArrayNode into, List<KvEventPublisher> publishers) {
        for (KvEventPublisher publisher : publishers) {
            KvEventPublisher.Stats stats = publisher.stats();
            ObjectNode rank = into.addObject();
            rank.put("dp_rank", stats.dpRank());
            rank.put("next_sequence", stats.nextSequence());
            rank.put("queued", stats.queued());
            rank.put("dropped_queue_full", stats.droppedQueueFull());
            rank.put("lost_by_fault", stats.lostByFault());
            rank.put("sent", stats.sent());
            rank.put("replays", stats.replays());
        }
    }
}
