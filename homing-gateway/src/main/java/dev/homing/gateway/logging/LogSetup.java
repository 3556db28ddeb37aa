package dev.homing.gateway.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.jul.LevelChangePropagator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.FileAppender;
import ch.qos.logback.core.encoder.Encoder;
import ch.qos.logback.core.spi.FilterReply;
import dev.homing.config.Settings;
import dev.homing.gateway.config.GatewayConfig;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;
import org.slf4j.bridge.SLF4JBridgeHandler;

import java.nio.file.Path;
import java.util.Locale;

/**
 * Applies {@code --log-level}, {@code --log-json} ({@link JsonLineEncoder}) and {@code --log-dir} to Logback at
 * start-up, over the shipped {@code logback.xml} (INFO, Netty and Vert.x at WARN), and sends what libraries log
 * through {@code java.util.logging} (the trace exporter, the JDK's HTTP client) the same way, so every line has the
 * same form. Call once, before the gateway starts.
 */
public final class LogSetup {

    private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n";

    private LogSetup() {
    }

    public static void apply(GatewayConfig config) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return;
        }
        bridgeJavaUtilLogging(context);
        Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(config.get(Settings.LOG_LEVEL).toUpperCase(Locale.ROOT), Level.INFO));
        if (!config.get(Settings.LOG_JSON) && config.get(Settings.LOG_DIR) == null) {
            return;
        }
        root.detachAndStopAllAppenders();
        ConsoleAppender<ILoggingEvent> console = new ConsoleAppender<>();
        start(context, console, "console", encoder(context, config.get(Settings.LOG_JSON)));
        root.addAppender(console);
        if (config.get(Settings.LOG_DIR) != null) {
            FileAppender<ILoggingEvent> file = new FileAppender<>();
            file.setFile(Path.of(config.get(Settings.LOG_DIR), "homing.log").toString());
            file.setAppend(true);
            start(context, file, "file", encoder(context, config.get(Settings.LOG_JSON)));
            root.addAppender(file);
        }
    }

    /**
     * Drops every line logged from a thread of {@code group} (or of a group within it) until the returned
     * {@link Quiet} is closed: for work at start-up whose lines would only mislead (the proxy warm-up's throwaway
     * gateway, whose threads all descend from one group), while the real gateway beside it logs as usual.
     */
    public static Quiet quiet(ThreadGroup group) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
            return () -> { };
        }
        TurboFilter filter = new TurboFilter() {
            @Override
            public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
                                      Throwable t) {
                ThreadGroup current = Thread.currentThread().getThreadGroup();
                return current != null && group.parentOf(current) ? FilterReply.DENY : FilterReply.NEUTRAL;
            }
        };
        filter.setContext(context);
        filter.start();
        context.addTurboFilter(filter);
        return () -> context.getTurboFilterList().remove(filter);
    }

    /** Ends a {@link #quiet} spell. */
    @FunctionalInterface
    public interface Quiet extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Routes {@code java.util.logging} to SLF4J. Logback's levels are copied to it as they change, so a record below
     * them is dropped where it is made rather than built and handed over.
     */
    private static void bridgeJavaUtilLogging(LoggerContext context) {
        if (context.getCopyOfListenerList().stream().noneMatch(LevelChangePropagator.class::isInstance)) {
            LevelChangePropagator levels = new LevelChangePropagator();
            levels.setContext(context);
            levels.setResetJUL(true);
            levels.start();
            context.addListener(levels);
        }
        if (!SLF4JBridgeHandler.isInstalled()) {
            SLF4JBridgeHandler.removeHandlersForRootLogger();
            SLF4JBridgeHandler.install();
        }
    }

    private static Encoder<ILoggingEvent> encoder(LoggerContext context, boolean json) {
        if (json) {
            JsonLineEncoder encoder = new JsonLineEncoder();
            encoder.setContext(context);
            encoder.start();
            return encoder;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        return encoder;
    }

    private static void start(LoggerContext context, Appender<ILoggingEvent> appender, String name,
                              Encoder<ILoggingEvent> encoder) {
        appender.setContext(context);
        appender.setName(name);
        if (appender instanceof ConsoleAppender<ILoggingEvent> c) {
            c.setEncoder(encoder);
        } else if (appender instanceof FileAppender<ILoggingEvent> f) {
            f.setEncoder(encoder);
        }
        appender.start();
    }
}
