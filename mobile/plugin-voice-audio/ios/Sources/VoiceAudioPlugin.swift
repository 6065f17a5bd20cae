// The voice-audio plugin on iOS: an AVAudioSession in playAndRecord / voiceChat mode and an
// AVAudioEngine with voice processing (Apple's echo canceller, which uses what the engine plays
// as its reference) on the input node. Captured and played samples go straight to Rust
// (mobile/plugin-voice-audio/src/bridge.rs) through its C functions.

import AVFoundation
import SwiftRs
import Tauri
import UIKit
import WebKit

@_silgen_name("pocket_voice_capture")
func pocketVoiceCapture(_ samples: UnsafePointer<Float>, _ len: Int, _ rate: UInt32)

@_silgen_name("pocket_voice_fill_playback")
func pocketVoiceFillPlayback(_ out: UnsafeMutablePointer<Float>, _ len: Int) -> Int

class VoiceAudioPlugin: Plugin {
  private let engine = AVAudioEngine()
  private var source: AVAudioSourceNode?
  private var tapInstalled = false
  private var observers: [NSObjectProtocol] = []

  private func info(granted: Bool) -> [String: Any] {
    let session = AVAudioSession.sharedInstance()
    return [
      "granted": granted,
      "platformStreams": true,
      "echoCanceller": "ios-voice-processing",
      "playbackRate": Int(session.sampleRate),
      "route": session.currentRoute.outputs.first?.portName ?? "Speaker",
    ]
  }

  private func requestMicrophone(_ done: @escaping (Bool) -> Void) {
    if #available(iOS 17.0, *) {
      AVAudioApplication.requestRecordPermission(completionHandler: done)
    } else {
      AVAudioSession.sharedInstance().requestRecordPermission(done)
    }
  }

  /// Asks for the microphone (the system shows NSMicrophoneUsageDescription), then configures
  /// the session for a two-way voice conversation on the loudspeaker.
  @objc public func openSession(_ invoke: Invoke) {
    requestMicrophone { granted in
      guard granted else {
        invoke.resolve(self.info(granted: false))
        return
      }
      do {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(
          .playAndRecord, mode: .voiceChat,
          options: [.defaultToSpeaker, .allowBluetooth])
        try session.setPreferredIOBufferDuration(0.01)
        try session.setActive(true)
        invoke.resolve(self.info(granted: true))
      } catch {
        invoke.reject("cannot configure the audio session: \(error.localizedDescription)")
      }
    }
  }

  /// Voice processing on the input, a tap that hands each captured block to Rust, and a source
  /// node that pulls the assistant's voice from Rust.
  @objc public func startStreams(_ invoke: Invoke) {
    do {
      stopEngine()
      let input = engine.inputNode
      try input.setVoiceProcessingEnabled(true)
      let inFormat = input.outputFormat(forBus: 0)
      let inRate = UInt32(inFormat.sampleRate)
      input.installTap(
        onBus: 0, bufferSize: AVAudioFrameCount(inFormat.sampleRate / 50), format: inFormat
      ) { buffer, _ in
        guard let channels = buffer.floatChannelData else { return }
        pocketVoiceCapture(channels[0], Int(buffer.frameLength), inRate)
      }
      tapInstalled = true

      let rate = AVAudioSession.sharedInstance().sampleRate
      guard let outFormat = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1) else {
        invoke.reject("no playback format at \(rate) Hz")
        return
      }
      let node = AVAudioSourceNode(format: outFormat) { _, _, frames, buffers -> OSStatus in
        for buffer in UnsafeMutableAudioBufferListPointer(buffers) {
          if let samples = buffer.mData?.assumingMemoryBound(to: Float.self) {
            _ = pocketVoiceFillPlayback(samples, Int(frames))
          }
        }
        return noErr
      }
      engine.attach(node)
      engine.connect(node, to: engine.mainMixerNode, format: outFormat)
      source = node
      engine.prepare()
      try engine.start()
      observeInterruptions()
      invoke.resolve(info(granted: true))
    } catch {
      stopEngine()
      invoke.reject("cannot start the voice streams: \(error.localizedDescription)")
    }
  }

  /// A phone call or Siri took the audio: start again when it gives it back.
  private func observeInterruptions() {
    guard observers.isEmpty else { return }
    let center = NotificationCenter.default
    observers.append(
      center.addObserver(
        forName: AVAudioSession.interruptionNotification, object: nil, queue: .main
      ) { [weak self] note in
        guard let self = self,
          let raw = note.userInfo?[AVAudioSessionInterruptionTypeKey] as? UInt,
          AVAudioSession.InterruptionType(rawValue: raw) == .ended
        else { return }
        try? AVAudioSession.sharedInstance().setActive(true)
        try? self.engine.start()
      })
  }

  private func stopEngine() {
    engine.stop()
    if tapInstalled {
      engine.inputNode.removeTap(onBus: 0)
      tapInstalled = false
    }
    if let node = source {
      engine.detach(node)
      source = nil
    }
  }

  @objc public func closeSession(_ invoke: Invoke) {
    stopEngine()
    for o in observers { NotificationCenter.default.removeObserver(o) }
    observers.removeAll()
    try? AVAudioSession.sharedInstance().setActive(false, options: .notifyOthersOnDeactivation)
    invoke.resolve()
  }
}

@_cdecl("init_plugin_voice_audio")
func initPlugin() -> Plugin {
  return VoiceAudioPlugin()
}
