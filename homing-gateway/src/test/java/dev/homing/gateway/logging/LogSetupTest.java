package dev.homing.gateway.logging;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.util.ContextInitializer;
import dev.homing.config.Config;
import dev.homing.config.Scope;
import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class LogSetupTest {

    @AfterEach
    void restoreTheTestConfiguration() throws Exception {
        LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
        context.reset();
        new ContextInitializer(context).autoConfig();
    }

    @Test
    void aLogDirectoryGetsAFileOfJsonLinesWhenAsked(@TempDir Path dir) throws Exception {
        LogSetup.apply(new GatewayConfig(Config.defaults(Scope.GATEWAY).with(Settings.LOG_DIR, dir.toString())
                .with(Settings.LOG_JSON, true).with(Settings.LOG_LEVEL, "warn")));

        LoggerFactory.getLogger("homing.test").warn("disk {} is {}", "d1", "full");

        String written = Files.readString(dir.resolve("homing.log"));
        assertThat(written).startsWith("{").contains("\"message\":\"disk d1 is full\"");
    }
}
