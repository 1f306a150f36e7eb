//! The window's cameras: an orbiting perspective camera for 3D scenes and a
//! panning orthographic camera for 2D ones, both in macroquad's math types.

use macroquad::camera::{Camera2D, Camera3D};
use macroquad::math::{vec2, vec3, Mat4, Vec2, Vec3};
use macroquad::window::{screen_height, screen_width};

/// Vertical field of view of the 3D camera, radians.
const FOVY: f32 = 0.8;

/// A perspective camera orbiting a target point, Y up.
#[derive(Copy, Clone, Debug)]
pub struct OrbitCamera {
    /// The point looked at, metres.
    pub target: Vec3,
    /// Angle about Y, radians.
    pub yaw: f32,
    /// Angle above the horizontal, radians.
    pub pitch: f32,
    /// Distance from the target, metres.
    pub distance: f32,
}

impl OrbitCamera {
    /// A camera that sees the whole box from `min` to `max` from above at
    /// an angle, in a window of `aspect` (width / height), aimed a little
    /// below the box's centre since things fall.
    pub fn framing(min: Vec3, max: Vec3, aspect: f32) -> Self {
        Self::framing_from(min, max, aspect, 0.65, 0.42)
    }

    /// [`Self::framing`] seen from the angles `yaw` about Y and `pitch`
    /// above the horizontal, radians.
    pub fn framing_from(min: Vec3, max: Vec3, aspect: f32, yaw: f32, pitch: f32) -> Self {
        let centre = (min + max) * 0.5;
        let mut camera = Self {
            target: vec3(centre.x, centre.y * 0.6, centre.z),
            yaw,
            pitch,
            distance: ((max - min) * 0.5).length().max(2.0),
        };
        let corners: Vec<Vec3> = (0..8)
            .map(|i| {
                vec3(
                    if i & 1 == 0 { min.x } else { max.x },
                    if i & 2 == 0 { min.y } else { max.y },
                    if i & 4 == 0 { min.z } else { max.z },
                )
            })
            .collect();
        for _ in 0..40 {
            let view = camera.view_projection(aspect);
            let fits = corners.iter().all(|&c| {
                let p = view.project_point3(c);
                p.x.abs() < 0.9 && p.y.abs() < 0.85 && p.z < 1.0
            });
            if fits {
                break;
            }
            camera.distance *= 1.1;
        }
        camera
    }

    /// Projection times view for a window of `aspect` (width / height).
    fn view_projection(&self, aspect: f32) -> Mat4 {
        Mat4::perspective_rh_gl(FOVY, aspect, 0.05, 2000.0)
            * Mat4::look_at_rh(self.eye(), self.target, Vec3::Y)
    }

    /// Where the camera is, metres.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + vec3(cp * sy, sp, cp * cy) * self.distance
    }

    /// Unit vectors to the right of and up from the view, and along it.
    pub fn basis(&self) -> (Vec3, Vec3, Vec3) {
        let forward = (self.target - self.eye()).normalize_or_zero();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        (right, right.cross(forward), forward)
    }

    /// Metres covered by one pixel at the depth of the point `at`, in a
    /// window `height` pixels high.
    pub fn metres_per_pixel(&self, at: Vec3, height: f32) -> f32 {
        let depth = (at - self.eye()).dot(self.basis().2).max(0.05);
        2.0 * depth * (FOVY * 0.5).tan() / height.max(1.0)
    }

    /// The field of view, radians.
    pub fn fovy(&self) -> f32 {
        FOVY
    }

    /// The macroquad camera to draw with.
    pub fn camera(&self) -> Camera3D {
        Camera3D {
            position: self.eye(),
            target: self.target,
            up: Vec3::Y,
            fovy: FOVY,
            z_near: 0.05,
            z_far: 2000.0,
            ..Default::default()
        }
    }

    /// Turns the camera by a mouse drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw -= delta.x * 0.006;
        self.pitch = (self.pitch + delta.y * 0.006).clamp(-0.2, 1.5);
    }

    /// Moves closer (`steps` > 0) or farther, by 10 % a step.
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.9f32.powf(steps)).clamp(1.0, 500.0);
    }

    /// The ray from the eye through the screen point `pixel`: origin and unit direction.
    pub fn ray(&self, pixel: Vec2) -> (Vec3, Vec3) {
        let inverse = self
            .view_projection(screen_width() / screen_height())
            .inverse();
        let ndc = vec2(
            2.0 * pixel.x / screen_width() - 1.0,
            1.0 - 2.0 * pixel.y / screen_height(),
        );
        let near = inverse.project_point3(vec3(ndc.x, ndc.y, -1.0));
        let far = inverse.project_point3(vec3(ndc.x, ndc.y, 1.0));
        let eye = self.eye();
        let dir = (far - near).try_normalize().unwrap_or(self.target - eye);
        (eye, dir.normalize_or_zero())
    }
}

/// An orthographic camera over the XY plane, Y up.
#[derive(Copy, Clone, Debug)]
pub struct PanCamera {
    /// World point at the centre of the screen, metres.
    pub centre: Vec2,
    /// Zoom, pixels per metre.
    pub pixels_per_metre: f32,
}

impl PanCamera {
    /// A camera that frames the box from `min` to `max` in a
    /// `width` x `height` pixel window, with some ground below.
    pub fn framing(min: Vec2, max: Vec2, width: f32, height: f32) -> Self {
        let size = (max - min).max(vec2(4.0, 4.0));
        let pixels_per_metre = (width / (size.x * 1.25)).min(height / (size.y * 1.4));
        let centre = (min + max) * 0.5;
        Self {
            centre: vec2(centre.x, centre.y - size.y * 0.05),
            pixels_per_metre,
        }
    }

    /// The macroquad camera to draw with.
    pub fn camera(&self) -> Camera2D {
        Camera2D {
            target: self.centre,
            // Macroquad flips Y when drawing to the screen; a negative zoom
            // puts world +Y up.
            zoom: vec2(
                2.0 * self.pixels_per_metre / screen_width(),
                -2.0 * self.pixels_per_metre / screen_height(),
            ),
            ..Default::default()
        }
    }

    /// Moves the view by a mouse drag of `delta` pixels.
    pub fn pan(&mut self, delta: Vec2) {
        self.centre -= vec2(delta.x, -delta.y) / self.pixels_per_metre;
    }

    /// Zooms in (`steps` > 0) or out by 10 % a step, keeping the world point
    /// under the screen point `pixel` in place.
    pub fn zoom_at(&mut self, steps: f32, pixel: Vec2) {
        let before = self.screen_to_world(pixel);
        self.pixels_per_metre = (self.pixels_per_metre / 0.9f32.powf(steps)).clamp(0.5, 2000.0);
        let after = self.screen_to_world(pixel);
        self.centre += before - after;
    }

    /// The world point under a screen point, metres.
    pub fn screen_to_world(&self, pixel: Vec2) -> Vec2 {
        let offset = pixel - vec2(screen_width(), screen_height()) * 0.5;
        self.centre + vec2(offset.x, -offset.y) / self.pixels_per_metre
    }

    /// Metres covered by one pixel.
    pub fn pixel(&self) -> f32 {
        1.0 / self.pixels_per_metre
    }
}
