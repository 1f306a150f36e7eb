//! Conversions between tumble's math types (glam 0.34, `tumble::glam`) and
//! macroquad's (macroquad pins an older glam). Every crossing goes through
//! this module, by way of plain arrays.

use macroquad::math as mq;
use tumble::glam;

/// A tumble 3D vector as a macroquad one.
#[inline]
pub fn vec3(v: glam::Vec3) -> mq::Vec3 {
    mq::Vec3::from_array(v.to_array())
}

/// A macroquad 3D vector as a tumble one.
#[inline]
pub fn to_vec3(v: mq::Vec3) -> glam::Vec3 {
    glam::Vec3::from_array(v.to_array())
}

/// A tumble 2D vector as a macroquad one.
#[inline]
pub fn vec2(v: glam::Vec2) -> mq::Vec2 {
    mq::Vec2::from_array(v.to_array())
}

/// A macroquad 2D vector as a tumble one.
#[inline]
pub fn to_vec2(v: mq::Vec2) -> glam::Vec2 {
    glam::Vec2::from_array(v.to_array())
}

/// A tumble quaternion as a macroquad one.
#[inline]
pub fn quat(q: glam::Quat) -> mq::Quat {
    mq::Quat::from_array(q.to_array())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let v = glam::Vec3::new(1.0, -2.0, 3.5);
        assert_eq!(to_vec3(vec3(v)), v);
        let w = glam::Vec2::new(-0.25, 8.0);
        assert_eq!(to_vec2(vec2(w)), w);
        let q = glam::Quat::from_rotation_y(0.7);
        let r = quat(q);
        let p = glam::Vec3::new(0.3, 0.1, -2.0);
        assert!((to_vec3(r * vec3(p)) - q * p).length() < 1e-6);
    }
}
