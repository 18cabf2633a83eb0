import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Enumeration;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Prints every key of every static ConfigProperty field declared by an Apache Hudi class in the
 * given jar, one per line, and each of its alternatives (older names) as "alternative TAB key".
 * The classes must be loadable from the class path (the release's jars plus Spark's jars);
 * classes that fail to load are reported on stderr and skipped.
 */
public class ListConfigKeys {
    public static void main(String[] args) throws Exception {
        ClassLoader loader = ListConfigKeys.class.getClassLoader();
        Class<?> configProperty = Class.forName("org.apache.hudi.common.config.ConfigProperty", false, loader);
        TreeSet<String> keys = new TreeSet<>();
        try (JarFile jar = new JarFile(args[0])) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                String name = entries.nextElement().getName();
                if (!name.startsWith("org/apache/hudi/") || name.startsWith("org/apache/hudi/org/")
                        || name.startsWith("org/apache/hudi/com/") || !name.endsWith(".class")) {
                    continue;
                }
                String className = name.substring(0, name.length() - 6).replace('/', '.');
                try {
                    Class<?> cls = Class.forName(className, false, loader);
                    // A Scala object (DataSourceWriteOptions) keeps its options as instance fields of its
                    // single instance, MODULE$; a Java class keeps them as static fields.
                    Object module = null;
                    if (className.endsWith("$")) {
                        try {
                            module = cls.getField("MODULE$").get(null);
                        } catch (NoSuchFieldException e) {
                            module = null;
                        }
                    }
                    for (Field field : cls.getDeclaredFields()) {
                        boolean isStatic = Modifier.isStatic(field.getModifiers());
                        if ((!isStatic && module == null) || !configProperty.isAssignableFrom(field.getType())) {
                            continue;
                        }
                        field.setAccessible(true);
                        Object prop = field.get(isStatic ? null : module);
                        if (prop == null) {
                            continue;
                        }
                        String key = (String) configProperty.getMethod("key").invoke(prop);
                        keys.add(key);
                        for (Object alt : (List<?>) configProperty.getMethod("getAlternatives").invoke(prop)) {
                            if (!key.equals(alt)) {
                                keys.add(alt + "\t" + key);
                            }
                        }
                    }
                } catch (Throwable e) {
                    System.err.println("skipped " + className + ": " + e);
                }
            }
        }
        for (String key : keys) {
            System.out.println(key);
        }
    }
}
