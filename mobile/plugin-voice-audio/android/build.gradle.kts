// Android library of the voice-audio plugin (Kotlin): the voice-communication capture and
// playback with the platform echo canceller. The Tauri CLI includes it in the app's Gradle build.
plugins {
    id("com.android.library")
    id("org.jetbrains.kotlin.android")
}

android {
    namespace = "app.pocketvoice.voiceaudio"
    compileSdk = 34

    defaultConfig {
        // AudioRecord/AudioTrack float PCM and AudioAttributes need API 23.
        minSdk = 24
        consumerProguardFiles("proguard-rules.pro")
    }

    buildTypes {
        release {
            isMinifyEnabled = false
        }
    }
    compileOptions {
        sourceCompatibility = JavaVersion.VERSION_1_8
        targetCompatibility = JavaVersion.VERSION_1_8
    }
    kotlinOptions {
        jvmTarget = "1.8"
    }
}

dependencies {
    implementation("androidx.core:core-ktx:1.9.0")
    implementation(project(":tauri-android"))
}
