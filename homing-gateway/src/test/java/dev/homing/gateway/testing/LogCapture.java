package dev.homing.gateway.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.slf4j.LoggerFactory;

import java.util.List;

/** What one logger writes while it is open: its errors, or everything from INFO up. */
public final class LogCapture implements AutoCloseable {

    private final Logger logger;
    private final Level levelBefore;
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture(String name, Level level) {
        this.logger = (Logger) LoggerFactory.getLogger(name);
        this.levelBefore = logger.getLevel();
        if (level != null) {
            logger.setLevel(level);
        }
        appender.start();
        logger.addAppender(appender);
    }

    public static LogCapture errorsOf(Class<?> type) {
        return new LogCapture(type.getName(), null);
    }

    /** Everything {@code type}'s logger writes at INFO and above, the tests' WARN notwithstanding. */
    public static LogCapture infoOf(Class<?> type) {
        return infoOf(type.getName());
    }

    /** As {@link #infoOf(Class)}, for a logger known by its name (the access log's). */
    public static LogCapture infoOf(String name) {
        return new LogCapture(name, Level.INFO);
    }

    public List<String> messages() {
        synchronized (appender.list) {
            return appender.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    public List<String> errors() {
        synchronized (appender.list) {
            return appender.list.stream().filter(event -> event.getLevel() == Level.ERROR)
                    .map(ILoggingEvent::getFormattedMessage).toList();
        }
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
        logger.setLevel(levelBefore);
    }
}
